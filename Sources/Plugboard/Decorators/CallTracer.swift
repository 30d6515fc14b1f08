/// ``PluginDecorator/tracing(_:)``: one debug log line per call to a traced plugin,
/// with the callback, its arguments, the answer and the duration, attributed to the plugin:
/// `trace: open_url(url: "myapp://item/42", options: "{}") → true in 2.1 µs`; for its
/// functions (``PluginHost/call(_:_:)``, other plugins' `invoke`):
/// `trace: function convert("ft", "m", 3.0) → 0.9144 in 3.4 µs`; for each notification
/// delivered to it: `trace: notification com.example.news(payload: "{}", from: "com.example.a") → delivered in 2.8 µs`;
/// for its saved state: `trace: save_state() → 12 bytes in 5.2 µs`,
/// `trace: restore_state(saved_version: "1.0", bytes: 12) → ok in 4.3 µs`. A failure answers `→ failed: <sentence>`.
final class CallTracer: Sendable {
    /// The plugins traced.
    let plugins: TracedPlugins
    /// Where the lines go (the host's log).
    let log: PluginHost.LogHandler

    /// A tracer of `plugins` logging to `log`.
    init(plugins: TracedPlugins, log: @escaping PluginHost.LogHandler) {
        self.plugins = plugins
        self.log = log
    }

    /// The longest argument value shown whole, in bytes; a longer one is cut and its size given.
    static let longestValue = 120

    /// Logs each call of `report` made to a traced plugin; `event` gives the arguments (asked only if one is traced).
    func record(_ report: EventReport, event: () -> LifecycleEvent) {
        let calls = report.calls.filter { plugins.contains($0.plugin) }
        guard !calls.isEmpty else { return }
        let callback = "\(report.event.callbackName)(\(Self.arguments(of: event())))"
        for call in calls {
            line(call.plugin, callback, call.answer.description, call.nanoseconds)
        }
    }

    /// Whether `plugin` is traced.
    func traces(_ plugin: PluginID) -> Bool {
        plugins.contains(plugin)
    }

    /// A function call as its trace line shows it: `function convert("ft", "m", 3.0)`.
    static func call(_ address: FunctionAddress, _ arguments: [PluginValue]) -> String {
        "function \(address.function)(\(arguments.map(Self.shown).joined(separator: ", ")))"
    }

    /// A function's result or error as its trace line shows it.
    static func answer(_ result: Result<PluginValue, PluginCallError>) -> String {
        switch result {
        case .success(let value): shown(value)
        case .failure(let error): "failed: \(error)"
        }
    }

    /// A delivery of `notification` as its trace line shows it: the name, the payload and the sender.
    static func call(_ notification: PluginNotification) -> String {
        "notification \(notification.name)(payload: \(quoted(Array(notification.payload.utf8))), "
            + "from: \(quoted(Array(notification.sender.utf8))))"
    }

    /// What a delivery came to: `delivered`, or the failure of the observer's worker.
    static func delivery(failure: String?) -> String {
        failure.map { "failed: \($0)" } ?? "delivered"
    }

    /// What a saved-state call came to: the size of the state given, `ok`, or the refusal.
    static func answer(_ answer: SavedStateCall.Answer) -> String {
        switch answer {
        case .state(let bytes): "\(bytes.count) bytes"
        case .restored: "ok"
        case .refused(let reason): "failed: \(reason)"
        }
    }

    /// The one form of every trace line: `trace: CALL → ANSWER in DURATION`, at level debug, attributed to `plugin`.
    func line(_ plugin: PluginID, _ call: String, _ answer: String, _ nanoseconds: UInt64?) {
        let duration = nanoseconds.map { " in " + DurationText.of(nanoseconds: $0) } ?? ""
        log(PluginLogRecord(source: HostIdentity.name, plugin: plugin.rawValue, level: .debug,
                            message: "trace: \(call) → \(answer)\(duration)"))
    }

    /// A function's argument or result: a string quoted and escaped (long ones cut), bytes counted, others as written.
    private static func shown(_ value: PluginValue) -> String {
        if case .string(let text) = value { return quoted(Array(text.utf8)) }
        return value.description
    }

    /// The event's arguments as its C slot gets them, `name: value`, each quoted and escaped, long
    /// ones cut; a token as hex digits.
    static func arguments(of event: LifecycleEvent) -> String {
        zip(event.kind.parameters, event.arguments).compactMap { parameter, argument in
            let shown: [UInt8]
            switch argument {
            case .text(let text): shown = text.bytes
            case .bytes(let bytes): shown = Array(Hexadecimal.lowercase(bytes).utf8)
            case .duration: return nil
            }
            return "\(parameter.name): \(quoted(shown))"
        }.joined(separator: ", ")
    }

    /// `bytes` as a Swift string literal (control characters and quotes escaped), cut past ``longestValue`` bytes.
    static func quoted(_ bytes: [UInt8]) -> String {
        let shown = String(decoding: bytes.prefix(longestValue), as: UTF8.self)
        return String(reflecting: shown) + (bytes.count > longestValue ? "… (\(bytes.count) bytes)" : "")
    }
}
