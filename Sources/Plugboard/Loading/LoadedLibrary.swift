import CPlugboard
import PlugboardFiles

/// A plugin library that passed every loading stage: opened, negotiated,
/// initialized and registered. Shared by every host in the process that
/// loads the same file; `deinit` runs when the last one lets go.
final class LoadedLibrary: @unchecked Sendable {
    let path: String
    let identity: FileIdentity
    let abi: LibraryABI
    let definitions: [CPluginDefinition]
    let refusals: [PluginRefusal]
    let router: LogRouter
    let completions = FetchCompletionPool()
    private let entry: pb_entry_t
    private let services: HostServicesTable
    private let session: RegistrationSession

    private init(path: String, identity: FileIdentity, abi: LibraryABI, entry: pb_entry_t,
                 services: HostServicesTable, session: RegistrationSession,
                 registered: (definitions: [CPluginDefinition], refusals: [PluginRefusal])) {
        self.path = path
        self.identity = identity
        self.abi = abi
        self.entry = entry
        self.services = services
        self.session = session
        self.router = services.context.router
        definitions = registered.definitions
        refusals = registered.refusals
    }

    /// Runs the loading stages in order; the first that fails ends it.
    /// `abi` receives the declared layout as soon as it is known, for reports.
    /// `fileSize`, when known from the `stat` that gave `identity`, spares the preflight an `fstat`.
    static func load(path: String, identity: FileIdentity, fileSize: Int? = nil, router: LogRouter, files: FileFacade?,
                     abi declared: inout LibraryABI?) -> Result<LoadedLibrary, LoadFailure> {
        if let failure = ELFPreflight.check(path, fileSize: fileSize) { return .failure(failure) }
        let library: DynamicLibrary
        switch DynamicLibrary.open(path) {
        case .success(let opened): library = opened
        case .failure(let failure): return .failure(failure)
        }
        let entryFunction: pb_entry_fn
        switch library.address(of: PB_ENTRY_SYMBOL) {
        case .success(let address): entryFunction = unsafeBitCast(address, to: pb_entry_fn.self)
        case .failure(let error):
            return .failure(LoadFailure(.entry, "no `\(PB_ENTRY_SYMBOL)` symbol: this is not a Plugboard plugin",
                                        systemError: error.text))
        }
        guard let record = entryFunction() else {
            return .failure(LoadFailure(.entry, "`\(PB_ENTRY_SYMBOL)` returned NULL: the library refused to provide its entry record"))
        }
        let raw = UnsafeRawPointer(record)
        let header = (size: raw.load(as: UInt32.self),
                      version: ABIVersion(major: raw.load(fromByteOffset: 4, as: UInt32.self),
                                          minor: raw.load(fromByteOffset: 8, as: UInt32.self)))
        declared = LibraryABI(version: header.version, structSizes: ["pb_entry_t": Int(header.size)])
        if let mismatch = header.version.incompatibility() { return .failure(LoadFailure(.version, mismatch)) }
        let entry: pb_entry_t
        switch pb_entry_t.read(from: raw) {
        case .success(let value): entry = value
        case .failure(let error): return .failure(LoadFailure(.version, error.description))
        }
        guard let register = entry.register_plugins else {
            return .failure(LoadFailure(.entry, "the entry record has no register_plugins function (it is required)"))
        }

        let services = HostServicesTable(libraryPath: path, router: router, files: files)
        _ = router.takeLastError()
        if let initialize = entry.`init`, !initialize(services.table) {
            return .failure(LoadFailure(.`init`, "init returned false" + explanation(router)))
        }
        let session = RegistrationSession(host: UnsafePointer(services.table))
        let succeeded = register(session.registrar)
        let registered = session.close()
        guard succeeded else {
            entry.deinit?()
            return .failure(LoadFailure(.register, "register_plugins returned false" + explanation(router)))
        }
        services.context.pluginIDs.withLock { ids in
            ids = Set(registered.definitions.map(\.descriptor.id.rawValue))
        }
        if var sizes = declared?.structSizes {
            sizes.reserveCapacity(sizes.count + registered.definitions.reduce(0) { $0 + $1.declaredSizes.count })
            for definition in registered.definitions {
                for (name, size) in definition.declaredSizes { raise(&sizes[name, default: size], to: size) }
            }
            declared?.structSizes = sizes
        }
        let abi = declared ?? LibraryABI(version: header.version, structSizes: [:])
        return .success(LoadedLibrary(path: path, identity: identity, abi: abi, entry: entry,
                                      services: services, session: session, registered: registered))
    }

    /// Calls the library's `deinit`; after it, no completion handle is valid.
    func finalize() {
        entry.deinit?()
        completions.releaseAll()
    }

    /// The larger of the sizes declared for one struct (one dictionary look-up through `default:`).
    private static func raise(_ value: inout Int, to size: Int) {
        value = max(value, size)
    }

    private static func explanation(_ router: LogRouter) -> String {
        router.takeLastError().map { ": \($0)" } ?? " (the library logged no error to say why)"
    }
}
