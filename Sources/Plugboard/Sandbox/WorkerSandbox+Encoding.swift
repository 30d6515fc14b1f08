/// The sandbox as the worker's environment carries it: one `key=value` line per field, text in
/// hexadecimal (a path may hold any byte but NUL), lists comma-separated. A worker reads it before
/// anything else runs, so it is read without Foundation (whose first use costs a worker's
/// start-up more than the rest of the sandbox).
extension WorkerSandbox {
    /// The text of ``variable``.
    var encoded: String {
        func texts(_ list: [String]) -> String { list.map { Hexadecimal.lowercase(Array($0.utf8)) }.joined(separator: ",") }
        func numbers(_ list: [some BinaryInteger]) -> String { list.map { String($0) }.joined(separator: ",") }
        var connect: [UInt16] = [], bind: [UInt16] = []
        if case .ports(let connecting, let binding) = grant.network { (connect, bind) = (connecting, binding) }
        let network = switch grant.network {
        case .none: "none"
        case .ports: "ports"
        case .all: "all"
        }
        return [
            "library=" + texts(libraries), "landlock=\(landlockABI)", "seccomp=\(seccomp ? 1 : 0)",
            "filter=" + Hexadecimal.lowercase(filter), "read=" + texts(grant.read), "write=" + texts(grant.write),
            "execute=" + texts(grant.execute), "network=" + network, "connect=" + numbers(connect), "bind=" + numbers(bind),
            "memory=" + numbers(grant.memoryBytes.map { [$0] } ?? []), "cpu=" + numbers(grant.cpuSeconds.map { [$0] } ?? []),
            "open-files=" + numbers(grant.openFiles.map { [$0] } ?? []), "thread-limit=\(limitsThreads ? 1 : 0)", "thread-limit-required=\(requiresThreadLimit ? 1 : 0)",
            "threads=" + numbers(grant.threads.map { [$0] } ?? []),
        ].joined(separator: "\n")
    }

    /// The sandbox ``encoded`` wrote; an error naming the field that does not read.
    init(encoded text: String) throws(SandboxFailure) {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { throw SandboxFailure(description: "a line of \(Self.variable) has no '='") }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        func field(_ key: Substring) throws(SandboxFailure) -> Substring {
            guard let value = fields[key] else { throw SandboxFailure(description: "\(Self.variable) has no \(key)") }
            return value
        }
        func texts(_ key: Substring) throws(SandboxFailure) -> [String] {
            var list: [String] = []
            for item in try field(key).split(separator: ",") {
                guard let bytes = Hexadecimal.bytes(String(item)) else {
                    throw SandboxFailure(description: "\(Self.variable)'s \(key) is not hexadecimal text")
                }
                list.append(String(decoding: bytes, as: UTF8.self))
            }
            return list
        }
        func numbers<Number: FixedWidthInteger>(_ key: Substring, as _: Number.Type) throws(SandboxFailure) -> [Number] {
            var list: [Number] = []
            for item in try field(key).split(separator: ",") {
                guard let number = Number(item) else { throw SandboxFailure(description: "\(Self.variable)'s \(key) is not a number list") }
                list.append(number)
            }
            return list
        }
        var grant = SandboxGrant()
        grant.read = try texts("read")
        grant.write = try texts("write")
        grant.execute = try texts("execute")
        switch try field("network") {
        case "none": grant.network = .none
        case "all": grant.network = .all
        case "ports": grant.network = .ports(connect: try numbers("connect", as: UInt16.self), bind: try numbers("bind", as: UInt16.self))
        default: throw SandboxFailure(description: "\(Self.variable)'s network is not none, ports or all")
        }
        grant.memoryBytes = try numbers("memory", as: UInt64.self).first
        grant.cpuSeconds = try numbers("cpu", as: UInt64.self).first
        grant.openFiles = try numbers("open-files", as: UInt64.self).first
        grant.threads = try numbers("threads", as: UInt64.self).first
        let libraries = try texts("library")
        guard !libraries.isEmpty, let landlockABI = try numbers("landlock", as: Int.self).first,
              let seccomp = try numbers("seccomp", as: Int.self).first,
              let limitsThreads = try numbers("thread-limit", as: Int.self).first,
              let requiresThreadLimit = try numbers("thread-limit-required", as: Int.self).first,
              let filter = Hexadecimal.bytes(String(try field("filter"))) else {
            throw SandboxFailure(description: "\(Self.variable) lacks the library, the layers or the filter")
        }
        self.init(libraries: libraries, landlockABI: landlockABI, seccomp: seccomp == 1, limitsThreads: limitsThreads == 1,
                  requiresThreadLimit: requiresThreadLimit == 1, grant: grant, filter: filter)
    }
}
