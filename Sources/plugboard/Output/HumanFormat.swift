import Foundation
import Plugboard

/// The human renderings of the report models; `--json` prints the models themselves.
enum HumanFormat {
    /// "850 ns", "12.3 µs", "4.10 ms", "1.20 s" (``DurationText``).
    static func duration(_ nanoseconds: UInt64) -> String {
        DurationText.of(nanoseconds: nanoseconds)
    }

    /// One file's load outcome, with its plugins (each with its functions and what `denials` denies it)
    /// and refusals indented below.
    static func load(_ report: LoadReport, denials: PolicyDenials? = nil) -> [String] {
        var lines: [String]
        switch report.status {
        case .loaded:
            lines = ["loaded   \(report.path)" + (report.abi.map { "  (ABI \($0.version))" } ?? "")]
        case .skipped:
            lines = ["skipped  \(report.path): same file as \(report.sameFileAs ?? "one loaded before")"]
        case .failed:
            lines = ["FAILED   \(report.path): " + (report.failure?.description ?? "unknown failure")]
        }
        lines += (report.warnings + report.plugins.flatMap(\.functionWarnings)).map { "           warning: \($0)" }
        for summary in report.plugins {
            lines.append("           " + plugin(summary))
            if let denied = denials?.denied(summary.descriptor.id) { lines.append("             denied by policy: " + denied) }
            lines += summary.functions.map { "             function " + function($0) }
        }
        guard report.status == .loaded else { return lines }
        if let sandbox = report.sandbox { lines.append("           sandbox: " + sandbox.line) }
        lines += report.refused.map { "           refused \($0.id.isEmpty ? "(no id)" : $0.id): \($0.failure)" }
        return lines
    }

    /// "com.example.x 1.0 "Name" priority 10 [launch, open-url]".
    static func plugin(_ summary: PluginSummary) -> String {
        let d = summary.descriptor
        let name = d.name == d.id.rawValue ? "" : " \"\(d.name)\""
        return "\(d.id) \(d.version)\(name)  priority \(d.priority)  [\(summary.concerns.map(\.rawValue).joined(separator: ", "))]"
    }

    /// "convert: double (string, string, double)  Converts a value.": a plugin's function, its signature and doc.
    static func function(_ declaration: FunctionDeclaration) -> String {
        "\(declaration.name): \(declaration.signature)" + (declaration.doc.isEmpty ? "" : "  \(declaration.doc)")
    }

    /// The tally line under a list of load reports: files by outcome, and the plugins they registered.
    static func tally(_ reports: [LoadReport]) -> String {
        let count = { (status: LoadReport.Status) in reports.filter { $0.status == status }.count }
        let plugins = reports.reduce(0) { $0 + $1.plugins.count }
        return "\(reports.count) file(s): \(count(.loaded)) loaded, \(count(.failed)) failed, \(count(.skipped)) skipped; \(plugins) plugin(s)"
    }

    /// An event's answer, who decided, and each call.
    static func event(_ report: EventReport, detail: String?) -> [String] {
        let title = report.event.name + (detail.map { " \($0)" } ?? "")
        var summary: String
        switch (report.event.policy, report.answer) {
        case (.callAllAnd, .bool(let ok)):
            summary = ok ? "true" : "false (vetoed by \(report.decidedBy.map(\.rawValue).joined(separator: ", ")))"
        case (.firstTrueWins, .bool(let handled)):
            summary = handled ? "handled by \(report.decidedBy.first?.rawValue ?? "?")" : "not handled"
        case (_, .fetch(let result)):
            summary = result.rawValue + (report.decidedBy.isEmpty ? "" : " (from \(report.decidedBy.map(\.rawValue).joined(separator: ", ")))")
        default:
            summary = "delivered"
        }
        var lines = ["\(title) → \(summary)  [\(report.calls.count) call(s), \(duration(report.nanoseconds))]"]
        lines += report.calls.map { call in
            "    \(call.plugin)  \(answer(call.answer))" + (call.nanoseconds.map { "  " + duration($0) } ?? "")
        }
        lines += report.denied.map { "    \($0)  denied by policy" }
        lines += report.failures.map { "    failed: \($0.message)" }
        lines += report.notes.map { "    note: \($0)" }
        return lines + notifications(report.notifications)
    }

    /// A script's post line and what its delivery did.
    static func post(_ name: String, _ report: NotificationReport) -> [String] {
        ["post \(name) → \(report.deliveries.count) delivery(ies)"] + notifications(report)
    }

    /// Each notification delivered (sender → receiver, duration), unobserved or dropped.
    static func notifications(_ report: NotificationReport) -> [String] {
        report.deliveries.map { delivery in
            "    notification \(delivery.name)  \(delivery.sender) → \(delivery.receiver)"
                + (delivery.nanoseconds.map { "  " + duration($0) } ?? "")
                + (delivery.failure.map { "  FAILED: \($0)" } ?? "")
        } + report.unobserved.map { "    notification \($0.name)  from \($0.sender): unobserved" }
          + report.dropped.map {
              "    notification \($0.name)  from \($0.sender): DROPPED, posted \($0.depth) deep "
                  + "(observers posting from observers; the limit is \(PostedNotification.depthLimit))"
          }
          + report.undelivered.map { "    notification \($0.name)  from \($0.sender): DROPPED, " + stopped(report.stopped) }
    }

    /// Why a delivery left notifications undelivered.
    private static func stopped(_ stop: DeliveryStop?) -> String {
        switch stop {
        case .interrupted: "the delivery stopped when the run was asked to stop"
        case .deliveryLimit, nil:
            "the delivery stopped after \(NotificationReport.deliveryLimit) deliveries (observers posting to each other, fanning out)"
        }
    }

    /// "state restored com.example.x (12 bytes)", one line per plugin, a warning indented below.
    static func savedState(_ report: SavedStateReport) -> [String] {
        report.entries.flatMap { entry in
            ["state \(entry.outcome.rawValue) \(entry.plugin)" + (entry.bytes.map { " (\($0) bytes)" } ?? "")]
                + (entry.warning.map { ["    warning: \($0)"] } ?? [])
        }
    }

    /// A live change: the new file's load, restoring and catching up its plugins, then the change's
    /// sentence (`reloaded /p/libx.so 1.2.0 → 1.3.0 in 14 ms`) with its warnings below.
    static func change(_ change: LibraryChange) -> [String] {
        var lines = change.load.map { load($0) } ?? []
        lines += change.states.flatMap(savedState)
        lines += change.catchUp.filter { !$0.calls.isEmpty }.flatMap { event($0, detail: nil) }
        lines.append(change.sentence)
        return lines + change.warnings.map { "    warning: \($0)" }
    }

    /// A line plugin code printed in a worker.
    static func output(_ line: PluginOutputLine) -> String {
        "  [\(line.source)] \(line.stream.rawValue): \(line.text)"
    }

    /// A plugin's log line.
    static func log(_ record: PluginLogRecord) -> String {
        "  [\(record.plugin ?? record.source)] \(record.level.rawValue): \(record.message)"
    }

    /// A call's answer in words; a failure in capitals, to stand out in the report.
    private static func answer(_ answer: PluginAnswer) -> String {
        answer == .failed ? "FAILED" : answer.description
    }
}
