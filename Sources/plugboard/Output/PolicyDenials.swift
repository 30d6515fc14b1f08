import Plugboard

/// What `--policy` denies each plugin of a report: `list`, `inspect` and `run` show it,
/// `--json` as `{"policy": FILE, "denials": {ID: [NAME…]}}` (only plugins denied something).
struct PolicyDenials: Codable {
    /// The policy file.
    let policy: String
    /// Each plugin's denied concerns and services, concerns first.
    let denials: [String: [String]]

    /// The denials of `plugins`; nil without a policy.
    init?(_ policy: AccessPolicy?, plugins: [PluginSummary]) {
        guard let policy else { return nil }
        self.policy = policy.source
        var denials: [String: [String]] = [:]
        for plugin in plugins {
            let denied = policy.denials(of: plugin.descriptor.id)
            if !denied.isEmpty { denials[plugin.descriptor.id.rawValue] = denied.sorted().map(\.description) }
        }
        self.denials = denials
    }

    /// Writes the denials as their `Codable` form would be encoded.
    func writeJSON(into writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("denials")
            writer.object { writer in
                for (id, denied) in denials.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                    writer.key(id)
                    writer.array(denied)
                }
            }
            writer.member("policy", policy)
        }
    }

    /// "files, open-url" for `id`, or nil when it is denied nothing.
    func denied(_ id: PluginID) -> String? {
        denials[id.rawValue]?.joined(separator: ", ")
    }
}
