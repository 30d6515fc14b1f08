/// What happened to one file during loading: the operator's answer to "why is
/// my plugin not there?".
public struct LoadReport: Sendable, Codable {
    /// The outcome for the file.
    public enum Status: String, Sendable, Codable {
        /// At least one plugin of the library is registered.
        case loaded
        /// Nothing of the library is used; ``LoadReport/failure`` says why.
        case failed
        /// The file was not loaded again: it is the same file (device and inode) as ``LoadReport/sameFileAs``.
        case skipped
    }

    /// The file or directory the report is about, as it was found.
    public let path: String
    /// The outcome.
    public var status: Status
    /// Why the library failed, when it did.
    public var failure: LoadFailure?
    /// For a skipped file: the path it was already loaded from.
    public var sameFileAs: String?
    /// The library's ABI layout, once its entry record was read.
    public var abi: LibraryABI?
    /// The plugins registered from this library, in the order the library added them.
    public var plugins: [PluginSummary] = []
    /// Plugins the library added that were refused, each with its reason.
    public var refused: [PluginRefusal] = []
    /// What the operator should know about a library that loaded anyway, e.g.
    /// that it failed the trust rule and ``PluginTrust/allowInsecure`` let it in.
    public var warnings: [String] = []
    /// How the library's code is confined (nil for a directory's report, and before loading).
    public var sandbox: SandboxSummary?
    /// When and how long ``PluginHost/loadPlugins(from:trust:)`` spent on this file
    /// (trust rule, load, `init`, `register_plugins`); nil for a directory's report.
    public var loadTime: LoadTime?

    init(path: String, status: Status) {
        self.path = path
        self.status = status
    }

    static func failed(_ path: String, _ failure: LoadFailure) -> LoadReport {
        var report = LoadReport(path: path, status: .failed)
        report.failure = failure
        return report
    }

    /// The report of a file that is the same file (device and inode) as one tried from `same`.
    static func skipped(_ path: String, sameFileAs same: String) -> LoadReport {
        var report = LoadReport(path: path, status: .skipped)
        report.sameFileAs = same
        return report
    }

    /// Moves each plugin `refusal` names to ``refused``; fails the report when none is left
    /// (the rule that a plugin id two libraries register belongs to neither, in a host or a listing).
    mutating func withdraw(_ refusal: (PluginID) -> LoadFailure?) {
        guard status == .loaded else { return }
        let withdrawn = plugins.compactMap { plugin in
            refusal(plugin.descriptor.id).map { PluginRefusal(id: plugin.descriptor.id.rawValue, failure: $0) }
        }
        // The usual case, no plugin withdrawn, changes nothing.
        guard !withdrawn.isEmpty else { return }
        refused += withdrawn
        plugins.removeAll { refusal($0.descriptor.id) != nil }
        if plugins.isEmpty { failForNoPlugin() }
    }

    /// Fails the report of a library left with no registered plugin, naming each refusal.
    mutating func failForNoPlugin() {
        status = .failed
        failure = LoadFailure(.register, refused.isEmpty
            ? "the library registered no plugin"
            : "no plugin of the library could be registered: " + refused.map(\.failure.message).joined(separator: "; "))
    }
}

/// When a file's loading began and how long it took, on the host's monotonic clock.
public struct LoadTime: Sendable, Codable, Equatable {
    /// ``MonotonicClock/now()`` when loading began.
    public let start: UInt64
    /// How long loading took: the time spent on this library. A load of many libraries opens
    /// each before the first one's `init` runs, so that time need not be in one piece.
    public let nanoseconds: UInt64
}

/// The ABI facts a library declared in its entry record.
public struct LibraryABI: Sendable, Codable, Equatable {
    /// The version the library was built for.
    public let version: ABIVersion
    /// The `struct_size` of each struct the library handed over: each C name once (the largest size
    /// declared for it), in byte order of the names, as reports show them. A list: a table made for
    /// every library loaded, each name hashed, cost more than the rest of its ABI facts.
    public private(set) var sortedStructSizes: [(name: String, size: Int)]

    /// ``sortedStructSizes`` by C name (two names that differ in their bytes but are the same text
    /// to `String`, from a damaged scan cache or a hostile worker, are one, with the larger size).
    public var structSizes: [String: Int] {
        get { Dictionary(sortedStructSizes, uniquingKeysWith: max) }
        set { sortedStructSizes = Self.sorted(newValue.map { ($0.key, $0.value) }) }
    }

    /// The facts of a library built for `version` that declared `structSizes`.
    public init(version: ABIVersion, structSizes: [String: Int]) {
        self.init(version: version, declared: structSizes.map { ($0.key, $0.value) })
    }

    /// The facts of a library built for `version` whose structs were `declared` with these sizes,
    /// in any order, a name maybe more than once.
    init(version: ABIVersion, declared: [(name: String, size: Int)]) {
        self.version = version
        sortedStructSizes = Self.sorted(declared)
    }

    /// The facts of a library built for `version` that handed over structs of the `declared` sizes.
    init(version: ABIVersion, declared: DeclaredStructSizes) {
        self.version = version
        sortedStructSizes = declared.sorted
    }

    /// `sizes` in byte order of the names, each name once with its largest size; sorted and merged in
    /// place, the names compared with `memcmp` (the generic comparison of two `UTF8View`s cost about
    /// 1,700 instructions a library loaded).
    private static func sorted(_ sizes: consuming [(name: String, size: Int)]) -> [(name: String, size: Int)] {
        sizes.sort { $0.name.precedesInByteOrder($1.name) }
        var kept = 0
        for index in sizes.indices {
            if kept > 0, !sizes[kept - 1].name.precedesInByteOrder(sizes[index].name) {  // the same bytes
                sizes[kept - 1].size = max(sizes[kept - 1].size, sizes[index].size)
            } else {
                sizes.swapAt(kept, index)
                kept += 1
            }
        }
        sizes.removeLast(sizes.count - kept)
        return sizes
    }

    /// The same version and the same struct sizes.
    public static func == (lhs: LibraryABI, rhs: LibraryABI) -> Bool {
        lhs.version == rhs.version && lhs.sortedStructSizes.elementsEqual(rhs.sortedStructSizes) { $0 == $1 }
    }

    private enum CodingKeys: String, CodingKey {
        case version, structSizes
    }

    /// Reads the `Codable` form: the version, and the struct sizes by name.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(version: try container.decode(ABIVersion.self, forKey: .version),
                  structSizes: try container.decode([String: Int].self, forKey: .structSizes))
    }

    /// Writes the `Codable` form: the version, and the struct sizes by name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(structSizes, forKey: .structSizes)
    }
}

/// A registered plugin as reports show it.
public struct PluginSummary: Sendable, Codable {
    /// Id, name, version, priority.
    public let descriptor: PluginDescriptor
    /// The concerns it takes part in, in declaration order.
    public let concerns: [PluginConcern]
    /// Where it came from.
    public let source: PluginSource
    /// The functions it declares that the host accepted (callable by ``FunctionAddress``), in declaration order.
    public let functions: [FunctionDeclaration]
    /// The function declarations the host refused, each with its reason: never called.
    public let refusedFunctions: [FunctionRefusal]

    init(descriptor: PluginDescriptor, concerns: [PluginConcern], source: PluginSource,
         functions: [FunctionDeclaration] = [], refusedFunctions: [FunctionRefusal] = []) {
        self.descriptor = descriptor
        self.concerns = concerns
        self.source = source
        self.functions = functions
        self.refusedFunctions = refusedFunctions
    }

    /// One warning line per refused function, naming the plugin, the function and the cause:
    /// `plugin com.example.x: function "f" refused: signature "double (int)": column 9: unknown type "int" …`.
    public var functionWarnings: [String] {
        refusedFunctions.map { refusal in
            "plugin \(descriptor.id): function " + (refusal.name.isEmpty ? "" : "\"\(refusal.name)\" ") + "refused: \(refusal.reason)"
        }
    }
}

/// A plugin that a library added and the host refused.
public struct PluginRefusal: Error, Sendable, Codable, Equatable {
    /// The id as the library gave it (possibly empty or malformed).
    public let id: String
    /// Why it was refused.
    public let failure: LoadFailure
}
