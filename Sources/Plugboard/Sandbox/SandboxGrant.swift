
/// What the policy grants one library's worker beyond the default sandbox (the policy file's
/// `"libraries"` object, keyed by the library's file name or path).
///
/// Grants are given per library, not per plugin: a library's plugins share one process, and
/// its sandbox is in place before its code runs, when its plugins' ids are not known yet.
public struct SandboxGrant: Sendable, Equatable {
    /// Where a worker may connect and listen.
    public enum Network: Sendable, Equatable {
        /// No network (the default).
        case none
        /// TCP (IPv4 and IPv6) to these ports only; other protocols stay refused.
        case ports(connect: [UInt16], bind: [UInt16])
        /// Every socket family and port.
        case all
    }

    /// Files and folders the worker may read.
    public var read: [String] = []
    /// Files and folders the worker may read, write, create in and remove from.
    public var write: [String] = []
    /// Programs the worker may execute.
    public var execute: [String] = []
    /// The network the worker may use.
    public var network: Network = .none
    /// Names of the host's environment variables passed to the worker.
    public var environment: [String] = []
    /// The worker's data-segment limit (`RLIMIT_DATA`) in bytes; nil: none.
    public var memoryBytes: UInt64?
    /// The worker's CPU-time limit (`RLIMIT_CPU`) in seconds; nil: none.
    public var cpuSeconds: UInt64?
    /// The worker's open-files limit (`RLIMIT_NOFILE`); ``defaultOpenFiles`` when not granted.
    public var openFiles: UInt64?
    /// The most threads the worker may run at once, its processes' included (`RLIMIT_NPROC`,
    /// counted for the worker alone); ``defaultThreads`` when not granted.
    public var threads: UInt64?

    /// The open-files limit of a worker whose grant names none.
    public static let defaultOpenFiles: UInt64 = 1024
    /// The thread limit of a worker whose grant names none: far more than a plugin's runtime and
    /// thread pools start, far fewer than the system's process ids.
    public static let defaultThreads: UInt64 = 512
    /// The lowest thread limit a grant may set: the worker's own threads, its process-group guard
    /// and a language runtime's first threads need a few.
    public static let fewestThreads: UInt64 = 16

    /// No grant: the default sandbox.
    public init() {}

    /// Whether the grant adds nothing to the default sandbox.
    public var isEmpty: Bool { self == SandboxGrant() }

    /// What the grant adds, one phrase each ("read /etc/ssl", "connect to TCP 443"), for reports.
    public var phrases: [String] {
        var phrases: [String] = []
        phrases += read.map { "read \($0)" }
        phrases += write.map { "write \($0)" }
        phrases += execute.map { "execute \($0)" }
        switch network {
        case .none: break
        case .all: phrases.append("network")
        case .ports(let connect, let bind):
            if !connect.isEmpty { phrases.append("connect to TCP " + connect.map(String.init).joined(separator: ",")) }
            if !bind.isEmpty { phrases.append("bind TCP " + bind.map(String.init).joined(separator: ",")) }
        }
        phrases += environment.map { "environment \($0)" }
        if let memoryBytes { phrases.append("memory \(memoryBytes) bytes") }
        if let cpuSeconds { phrases.append("cpu \(cpuSeconds) s") }
        if let openFiles { phrases.append("open files \(openFiles)") }
        if let threads { phrases.append("threads \(threads)") }
        return phrases
    }
}

extension SandboxGrant {
    /// The keys of a grant in the policy file.
    static let keys = ["read", "write", "execute", "network", "environment", "memory", "cpu", "open-files", "threads"]

    /// The grant at `path` of the policy file `source`: an object with the ``keys``; anything
    /// else is an error naming the key and why.
    init(policyValue value: JSONValue?, at path: String, source: String) throws(AccessPolicyError) {
        func fault(_ key: String?, _ cause: String) -> AccessPolicyError {
            AccessPolicyError(file: source, at: key.map { "\(path).\($0)" } ?? path, cause: cause)
        }
        guard let object = value?.asObject else {
            throw fault(nil, "must be an object with any of \(Self.keys.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        self.init()
        for key in object.keys.sorted() {
            let value = object[key]
            switch key {
            case "read", "write", "execute":
                guard let paths = value?.asStrings else { throw fault(key, "must be a list of absolute paths") }
                for (index, item) in paths.enumerated() where !item.hasPrefix("/") {
                    throw fault("\(key)[\(index)]", "names \(String(reflecting: item)), which is not an absolute path")
                }
                switch key {
                case "read": read = paths
                case "write": write = paths
                default: execute = paths
                }
            case "network":
                if let word = value?.asString, word == "all" {
                    network = .all
                } else if let ports = value?.asObject {
                    var connect: [UInt16] = [], bind: [UInt16] = []
                    for side in ports.keys.sorted() {
                        guard side == "connect" || side == "bind" else {
                            throw fault("network.\(side)", "is not a network key (the keys are \"connect\" and \"bind\")")
                        }
                        guard let numbers = ports[side]?.asArray else { throw fault("network.\(side)", "must be a list of TCP ports") }
                        var list: [UInt16] = []
                        for (index, number) in numbers.enumerated() {
                            guard let port = number.asWholeNumber, (1...65_535).contains(port) else {
                                throw fault("network.\(side)[\(index)]", "must be a TCP port, 1 to 65535")
                            }
                            list.append(UInt16(port))
                        }
                        if side == "connect" { connect = list } else { bind = list }
                    }
                    network = .ports(connect: connect, bind: bind)
                } else {
                    throw fault(key, "must be \"all\" or an object with \"connect\" and \"bind\" port lists")
                }
            case "environment":
                guard let names = value?.asStrings else { throw fault(key, "must be a list of variable names") }
                for (index, name) in names.enumerated() where name.isEmpty || name.contains("=") {
                    throw fault("\(key)[\(index)]", "names \(String(reflecting: name)), which is not a variable name")
                }
                environment = names
            case "memory":
                guard let bytes = Self.bytes(value) else {
                    throw fault(key, "must be a size in bytes: a positive whole number, or one with K, M or G (\"512M\")")
                }
                memoryBytes = bytes
            case "threads":
                guard let number = value?.asWholeNumber, number >= Self.fewestThreads else {
                    throw fault(key, "must be a whole number of at least \(Self.fewestThreads)")
                }
                threads = UInt64(number)
            case "cpu", "open-files":
                guard let number = value?.asWholeNumber, number > 0 else { throw fault(key, "must be a positive whole number") }
                if key == "cpu" { cpuSeconds = UInt64(number) } else { openFiles = UInt64(number) }
            default:
                throw fault(key, "is not a grant key (the keys are \(Self.keys.map { "\"\($0)\"" }.joined(separator: ", ")))")
            }
        }
    }

    /// A size: a positive whole number of bytes, or text with a K, M or G suffix.
    private static func bytes(_ value: JSONValue?) -> UInt64? {
        if let number = value?.asWholeNumber { return number > 0 ? UInt64(number) : nil }
        guard let text = value?.asString, let unit = text.last, let count = UInt64(text.dropLast()), count > 0 else { return nil }
        let scale: UInt64? = switch unit {
        case "K": 1 << 10
        case "M": 1 << 20
        case "G": 1 << 30
        default: nil
        }
        guard let scale else { return nil }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }
}
