import CFaultReporter
import CPlugboard
import PlugboardFiles
import PlugboardWorkerProtocol

/// A plugin library that passed every loading stage: checked, opened,
/// negotiated, initialized and registered. Shared by every host in the process
/// that loads the same file; `deinit` runs when the last one lets go.
final class LoadedLibrary: @unchecked Sendable {
    let path: String
    let identity: FileIdentity
    let abi: LibraryABI
    let definitions: [CPluginDefinition]
    let refusals: [PluginRefusal]
    let router: LogRouter
    let completions: FetchCompletionPool
    private let entry: pb_entry_t
    /// Who runs in the library's own functions (`init`, `deinit`…), for fault and timeout messages.
    private let label: UnsafePointer<pbf_label_t>
    private let lifetime: LibraryLifetime
    private let services: HostServicesTable
    private let session: RegistrationSession

    /// A library that failed at some stage, with the ABI layout it declared if
    /// it got that far (reports show it either way).
    struct Failure: Error {
        let failure: LoadFailure
        let abi: LibraryABI?
    }

    private init(path: String, identity: FileIdentity, abi: LibraryABI, entry: pb_entry_t,
                 label: UnsafePointer<pbf_label_t>, services: HostServicesTable, session: RegistrationSession,
                 registered: (definitions: [CPluginDefinition], refusals: [PluginRefusal])) {
        self.path = path
        self.identity = identity
        self.abi = abi
        self.entry = entry
        self.label = label
        self.services = services
        self.session = session
        lifetime = services.context.lifetime
        router = services.context.router
        completions = FetchCompletionPool(lifetime: lifetime)
        definitions = registered.definitions
        refusals = registered.refusals
    }

    /// Runs the loading stages in order; the first that fails ends it.
    /// `fileSize` is the size the `stat` that gave `identity` found; `opened` is the library
    /// already checked and opened (``open(_:_:label:calls:)``), or why it could not be; nil to do it
    /// now. Every call into the library's code is recorded in `calls`, so a crash names the stage.
    /// Run by ``LibraryTable/acquire(path:identity:fileSize:opened:owner:sink:refusals:files:gate:calls:)``,
    /// under the table's lock.
    static func load(path: String, identity: FileIdentity, fileSize: Int, opened: Result<Opened, LoadFailure>?, router: LogRouter,
                     files: FilesAccess?, gate: ServiceGate, calls: LibraryCallSite) throws(Failure) -> LoadedLibrary {
        let label: UnsafePointer<pbf_label_t>
        let record: UnsafeRawPointer
        do {
            if let opened {
                let library = try opened.get()
                label = library.label
                if let entry = library.entry {
                    record = entry
                } else {
                    record = try entryRecord(library.library, calls: calls, label: label)
                }
            } else {
                label = try check(path, fileSize: fileSize)
                record = try entryRecord(openImage(path, identity, label: label, record: calls.record), calls: calls, label: label)
            }
        } catch {
            throw Failure(failure: error, abi: nil)
        }
        let version = ABIVersion(major: record.load(fromByteOffset: 4, as: UInt32.self),
                                 minor: record.load(fromByteOffset: 8, as: UInt32.self))
        let entrySize = Int(record.load(as: UInt32.self))
        do {
            return try start(path: path, identity: identity, record: record, version: version, entrySize: entrySize,
                             router: router, files: files, gate: gate, calls: calls, label: label)
        } catch {
            throw Failure(failure: error, abi: LibraryABI(version: version, declared: DeclaredStructSizes(.entry, size: entrySize)))
        }
    }

    /// A library checked and opened, the label its code runs under in fault and timeout messages,
    /// and the record its `plugboard_entry` returned; nil when a host held the library as it was
    /// opened (its entry is not called then: its stages ran, for that host).
    struct Opened {
        let library: DynamicLibrary
        let label: UnsafePointer<pbf_label_t>
        let entry: UnsafeRawPointer?
    }

    /// The ELF checks of the library at `path`, whose `stat` found `fileSize`, before any code of
    /// the library runs; then the label its code will run under. `descriptor` is the file already
    /// open (the caller closes it), nil to open it now.
    static func check(_ path: String, fileSize: Int, descriptor: Int32? = nil) throws(LoadFailure) -> UnsafePointer<pbf_label_t> {
        if let descriptor {
            try ELFPreflight.check(descriptor: descriptor, fileSize: fileSize)
        } else {
            try ELFPreflight.check(path, fileSize: fileSize)
        }
        return label(path)
    }

    /// The label the code of the library at `path` runs under, for one whose checks passed.
    static func label(_ path: String) -> UnsafePointer<pbf_label_t> {
        path.withCString { pbf_label_create($0, $0) }
    }

    /// The checked library at `path`, the file `identity`, opened (``openImage(_:_:label:record:)``),
    /// then its `plugboard_entry` called, recorded in `calls` under `label`.
    ///
    /// The entry is called right after the `dlopen`, while the kernel's and the dynamic loader's
    /// structures of the new image are still in the processor's caches: its symbol is looked up, and
    /// the first page of its code mapped, at a fraction of what they cost once a thousand more
    /// libraries were opened in between (BENCHMARKS.md, Loading). The host allocates nothing for it,
    /// so the loader's `dlopen`s still run back to back (a library's own entry may: the Swift SDK's
    /// makes its record on the first call). It is called under the library table's lock, as every
    /// stage of a library is (``LibraryTable/entryRecord(of:_:)``): one call at a time, whichever
    /// host's thread makes it.
    static func open(_ path: String, _ identity: FileIdentity, label: UnsafePointer<pbf_label_t>,
                     calls: LibraryCallSite) throws(LoadFailure) -> Opened {
        let library = try openImage(path, identity, label: label, record: calls.record)
        let entry = try LibraryTable.shared.entryRecord(of: identity) { () throws(LoadFailure) in
            try entryRecord(library, calls: calls, label: label)
        }
        return Opened(library: library, label: label, entry: entry)
    }

    /// `dlopen` of the checked library at `path`, the file `identity`, which runs the library's
    /// constructors: recorded in `record` under `label`, so a crash or a hang there names the
    /// library. Refused when the process opened another file from that path before
    /// (``LibraryTable/opening(_:as:_:)``).
    private static func openImage(_ path: String, _ identity: FileIdentity, label: UnsafePointer<pbf_label_t>,
                                  record: CallRecord) throws(LoadFailure) -> DynamicLibrary {
        try LibraryTable.shared.opening(path, as: identity) { () throws(LoadFailure) in
            let outer = record.begin(Self.openCallback)
            record.enter(label)
            defer { record.end(resuming: outer) }
            return try DynamicLibrary.open(path)
        }
    }

    /// What fault and timeout messages call the opening of a library (its constructors run in it).
    static let openCallback: StaticString = "dlopen"

    /// The stage that follows the opening of `library`: the record its `plugboard_entry` returns.
    private static func entryRecord(_ library: DynamicLibrary, calls: LibraryCallSite,
                                    label: UnsafePointer<pbf_label_t>) throws(LoadFailure) -> UnsafeRawPointer {
        let entryFunction: pb_entry_fn
        do {
            entryFunction = unsafeBitCast(try library.address(of: PB_ENTRY_SYMBOL), to: pb_entry_fn.self)
        } catch {
            throw LoadFailure(.entry, "no `\(PB_ENTRY_SYMBOL)` symbol: this is not a Plugboard plugin", systemError: error.text)
        }
        guard let record = calls.around(.entry, label, entryFunction) else {
            throw LoadFailure(.entry, "`\(PB_ENTRY_SYMBOL)` returned NULL: the library refused to provide its entry record")
        }
        return UnsafeRawPointer(record)
    }

    /// The stages that follow: version negotiation, `init`, `register_plugins`.
    private static func start(path: String, identity: FileIdentity, record: UnsafeRawPointer, version: ABIVersion, entrySize: Int,
                              router: LogRouter, files: FilesAccess?, gate: ServiceGate, calls: LibraryCallSite,
                              label: UnsafePointer<pbf_label_t>) throws(LoadFailure) -> LoadedLibrary {
        if let mismatch = version.incompatibility() { throw LoadFailure(.version, mismatch) }
        let entry: pb_entry_t
        do {
            entry = try pb_entry_t.read(from: record).get()
        } catch {
            throw LoadFailure(.version, error.description)
        }
        guard let register = entry.register_plugins else {
            throw LoadFailure(.entry, "the entry record has no register_plugins function (it is required)")
        }

        let lifetime = LibraryLifetime(libraryPath: path, router: router)
        let services = HostServicesTable(lifetime: lifetime, router: router, files: files, gate: gate)
        _ = router.takeLastError()
        if let initialize = entry.`init`, !calls.around(.`init`, label, { initialize(services.table) }) {
            lifetime.end(.initFailed)
            services.context.prepared.releaseAll()
            throw LoadFailure(.`init`, "init returned false" + explanation(router))
        }
        let session = RegistrationSession(host: UnsafePointer(services.table))
        let succeeded = calls.around(.registerPlugins, label) { register(session.registrar) }
        let registered = session.close()
        guard succeeded else {
            if let deinitialize = entry.deinit { calls.around(.`deinit`, label, deinitialize) }
            lifetime.end(.deinitialized)
            services.context.prepared.releaseAll()
            throw LoadFailure(.register, "register_plugins returned false" + explanation(router) + refused(registered.refusals))
        }
        services.context.pluginIDs.withLock { ids in
            ids = registered.definitions.map(\.descriptor.id.rawValue)
        }
        var declared = DeclaredStructSizes(.entry, size: entrySize)
        for definition in registered.definitions { declared.declare(definition.declaredSizes) }
        let abi = LibraryABI(version: version, declared: declared)
        return LoadedLibrary(path: path, identity: identity, abi: abi, entry: entry, label: label,
                             services: services, session: session, registered: registered)
    }

    /// Calls the library's `deinit` (recorded in `calls`); afterwards every call it makes
    /// into the host is ignored and reported, and the invocations it prepared are freed.
    func finalize(calls: LibraryCallSite) {
        if let deinitialize = entry.deinit { calls.around(.`deinit`, label, deinitialize) }
        lifetime.end(.deinitialized)
        services.context.prepared.releaseAll()
    }

    /// The services the host's policy denies the library.
    var gate: ServiceGate { services.context.gate }

    /// The owner of the library's observations on the notification bus.
    var observerOwner: ObjectIdentifier { ObjectIdentifier(services.context) }

    /// Whose functions the library's `invoke` reaches.
    var invocations: InvocationRouter { services.context.invocations }

    /// How this initialization of the library used the host services, by thread, so far.
    var serviceCensus: ServiceCensus { lifetime.census.census }

    /// What `add_plugin` refused before `register_plugins` returned false (often why it did):
    /// "; add_plugin refused: …", or nothing.
    private static func refused(_ refusals: [PluginRefusal]) -> String {
        refusals.isEmpty ? "" : "; add_plugin refused: " + refusals.map(\.failure.message).joined(separator: "; ")
    }

    private static func explanation(_ router: LogRouter) -> String {
        router.takeLastError().map { ": \($0)" } ?? " (the library logged no error to say why)"
    }
}
