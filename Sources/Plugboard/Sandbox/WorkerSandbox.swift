import Synchronization

/// How one worker is confined: the layers the host chose for the kernel it runs on, the
/// policy's grant for the library, and the seccomp filter the host compiled for it. The host
/// puts it in the worker's environment (``variable``, ``encoded``); the worker applies it before
/// it opens the library (``apply(environment:)``).
public struct WorkerSandbox: Sendable, Equatable {
    /// The libraries the worker loads, which it may read (with the libraries they need): one,
    /// or a scanner's share of a listing (``ScanOptions/inWorkers(worker:callTimeout:sandbox:grants:output:)``).
    public let libraries: [String]
    /// The Landlock ABI to use; 0: no Landlock layer.
    public let landlockABI: Int
    /// Whether to install the seccomp filter.
    public let seccomp: Bool
    /// Whether to limit the worker's threads (the grant's, or ``SandboxGrant/defaultThreads``):
    /// the kernel can count them apart (``SandboxSupport/threads``).
    public let limitsThreads: Bool
    /// Whether the worker must not serve without its thread limit (``SandboxMode/strict``): under
    /// ``SandboxMode/best`` one whose threads the kernel turns out not to count apart serves without
    /// it, and says so.
    public let requiresThreadLimit: Bool
    /// What the policy grants the library.
    public let grant: SandboxGrant
    /// The seccomp filter as a BPF program, compiled by the host (empty without seccomp).
    let filter: [UInt8]

    /// The worker's environment variable that carries the sandbox (``encoded``).
    public static let variable = "PLUGBOARD_WORKER_SANDBOX"
    /// The descriptor on which the worker reports the system calls its filter refused.
    public static let reportDescriptor: Int32 = 4
    /// The exit status of a worker that could not confine itself (it says why on standard error).
    public static let failureStatus: Int32 = 77
    /// The host's variables every confined worker gets: locale and time zone.
    public static let passedVariables = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES",
                                         "LC_MONETARY", "LC_NUMERIC", "LC_TIME", "TZ"]

    init(libraries: [String], landlockABI: Int, seccomp: Bool, limitsThreads: Bool, requiresThreadLimit: Bool, grant: SandboxGrant,
         filter: [UInt8] = []) {
        self.libraries = libraries
        self.landlockABI = landlockABI
        self.seccomp = seccomp
        self.limitsThreads = limitsThreads
        self.requiresThreadLimit = requiresThreadLimit
        self.grant = grant
        self.filter = filter
    }

    /// Every layer `support` offers, under `mode`, with `filter` (none compiled yet when empty).
    init(libraries: [String], support: SandboxSupport, mode: SandboxMode, grant: SandboxGrant, filter: [UInt8] = []) {
        self.init(libraries: libraries, landlockABI: support.landlockABI, seccomp: support.seccomp, limitsThreads: support.threads,
                  requiresThreadLimit: mode == .strict, grant: grant, filter: filter)
    }

    /// The thread limit the worker gets; nil when it gets none.
    var threadLimit: UInt64? {
        limitsThreads ? grant.threads ?? SandboxGrant.defaultThreads : nil
    }

    /// The sandbox of a worker for `libraries` (one, or a scanner's share): nil under
    /// ``SandboxMode/off``; under ``SandboxMode/strict``, an error when `support` lacks a layer.
    static func plan(for libraries: [String], mode: SandboxMode, support: SandboxSupport,
                     grant: SandboxGrant) throws(LoadFailure) -> WorkerSandbox? {
        switch mode {
        case .off:
            return nil
        case .strict:
            if let missing = support.missing.first ?? support.missingGuard(for: grant) {
                throw LoadFailure(.worker, "--sandbox strict: this kernel lacks \(missing); the worker was not started")
            }
        case .best:
            break
        }
        let unfiltered = WorkerSandbox(libraries: libraries, support: support, mode: mode, grant: grant)
        guard support.seccomp else { return unfiltered }
        do throws(SandboxFailure) {
            return WorkerSandbox(libraries: libraries, support: support, mode: mode, grant: grant,
                                 filter: try CompiledFilters.shared.filter(for: unfiltered))
        } catch {
            throw LoadFailure(.worker, "the sandbox's seccomp filter cannot be made: \(error); the worker was not started")
        }
    }

    /// The worker's environment: the locale and time zone of `host`, the variables the grant
    /// names, and the worker's own (`own`). Nothing else of the host's reaches a confined worker.
    func environment(from host: [String: String], own: [String: String]) -> [String: String] {
        var environment: [String: String] = [:]
        for name in Self.passedVariables + grant.environment {
            if let value = host[name] { environment[name] = value }
        }
        environment.merge(own) { _, mine in mine }
        environment[Self.variable] = encoded
        return environment
    }

    /// What a report says of it.
    var summary: SandboxSummary {
        var layers: [String] = []
        if landlockABI > 0 { layers.append("landlock-\(landlockABI)") }
        if seccomp { layers.append("seccomp") }
        if let threadLimit { layers.append("threads-\(threadLimit)") }
        return SandboxSummary(mode: nil, layers: layers, grants: grant.phrases)
    }
}

/// What a load report says about a library's sandbox.
public struct SandboxSummary: Sendable, Equatable, Codable {
    /// Why there is none: `off` (`--sandbox off`) or `in-process`; nil for a confined worker.
    public var mode: String?
    /// The layers applied ("landlock-7", "seccomp", "threads-512").
    public var layers: [String]
    /// What the policy granted beyond the default, one phrase each.
    public var grants: [String]

    /// The sandbox a worker for `library` gets under `mode` and `policy` on this kernel (under
    /// ``SandboxMode/strict`` on a kernel that lacks a layer: what it would get, were it started).
    public init(library: String, mode: SandboxMode, policy: AccessPolicy?) {
        let grant = policy?.grant(forLibrary: library) ?? SandboxGrant()
        if mode == .off {
            self.init(mode: SandboxMode.off.rawValue, layers: [], grants: [])
        } else {
            self = WorkerSandbox(libraries: [library], support: SandboxSupport.kernel, mode: mode, grant: grant).summary
        }
    }

    /// A summary of its parts.
    init(mode: String?, layers: [String], grants: [String]) {
        self.mode = mode
        self.layers = layers
        self.grants = grants
    }

    /// One line for people: "Landlock ABI 7, seccomp, 512 threads; grants: read /etc/ssl", or "none (--sandbox off)".
    public var line: String {
        if let mode { return mode == "off" ? "none (--sandbox off)" : "none (in process)" }
        let named = layers.map { layer in
            if layer.hasPrefix("landlock-") { return "Landlock ABI " + layer.dropFirst("landlock-".count) }
            if layer.hasPrefix("threads-") { return layer.dropFirst("threads-".count) + " threads" }
            return layer
        }
        let layerText = named.isEmpty ? "no kernel layer" : named.joined(separator: ", ")
        return layerText + (grants.isEmpty ? "" : "; grants: " + grants.joined(separator: ", "))
    }
}
