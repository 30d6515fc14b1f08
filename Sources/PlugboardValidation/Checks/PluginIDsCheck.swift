import Plugboard

/// The `plugin-ids` check: every plugin the library offers is registered under a valid id.
enum PluginIDsCheck {
    /// The check.
    static let check = ValidationCheck(
        name: "plugin-ids",
        description: "Every plugin has a reverse-DNS id, unique in the library, and is registered.") { subject in
        let loaded = subject.load()
        defer { loaded.host.shutdown() }
        let report = loaded.report
        if !report.refused.isEmpty {
            return (.fail, report.refused.map { "\($0.id.isEmpty ? "(no id)" : $0.id): \($0.failure.message)" }
                .joined(separator: "; "))
        }
        guard report.status == .loaded else { return (.skipped, ValidationSubject.doesNotLoad) }
        return (.pass, report.plugins.map(\.descriptor.id.rawValue).joined(separator: ", "))
    }
}
