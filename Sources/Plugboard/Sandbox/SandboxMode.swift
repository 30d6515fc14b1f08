/// How hard a host confines its workers (`plugboard --sandbox`).
public enum SandboxMode: String, Sendable, CaseIterable, Codable {
    /// Refuse to start a worker that cannot get every layer of the sandbox.
    case strict
    /// Apply every layer the kernel offers; the host warns once, naming what is missing.
    case best
    /// No sandbox: workers run with the host's rights and environment. For trusted plugins.
    case off
}
