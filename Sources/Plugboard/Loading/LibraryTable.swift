import PlugboardFiles
import Synchronization

/// The libraries loaded in this process, by file identity.
///
/// A file is initialized once however many hosts load it; the last host to
/// release it triggers its `deinit`. The library stays mapped (RTLD_NODELETE),
/// so a later load initializes it again.
final class LibraryTable: Sendable {
    static let shared = LibraryTable()

    private struct Entry {
        let library: LoadedLibrary
        /// The hosts that hold it: nearly always one, so a list searched costs less than a set made.
        var users: [ObjectIdentifier]
    }

    private let entries = Mutex<[FileIdentity: Entry]>([:])

    /// The library at `path` for `owner`, loading it if no host has it yet.
    /// The files service and the service gate are the first host's: a library is initialized once.
    /// `fileSize` is the size the `stat` that gave `identity` found; the library's
    /// calls run recorded in the owner's `calls`. Its messages go to `sink`, its refused bus calls to `refusals`.
    func acquire(path: String, identity: FileIdentity, fileSize: Int, opened: Result<LoadedLibrary.Opened, LoadFailure>?, owner: ObjectIdentifier,
                 sink: @escaping LogRouter.Sink, refusals: LogRouter.RefusalSink?, files: FilesAccess?, gate: ServiceGate,
                 calls: LibraryCallSite) throws(LoadedLibrary.Failure) -> LoadedLibrary {
        try entries.withLock { entries throws(LoadedLibrary.Failure) -> LoadedLibrary in
            if var entry = entries[identity] {
                if !entry.users.contains(owner) { entry.users.append(owner) }
                entries[identity] = entry
                entry.library.router.attach(owner, sink, refusals: refusals)
                return entry.library
            }
            let router = LogRouter()
            router.attach(owner, sink, refusals: refusals)
            do throws(LoadedLibrary.Failure) {
                let library = try LoadedLibrary.load(path: path, identity: identity, fileSize: fileSize, opened: opened,
                                                     router: router, files: files, gate: gate, calls: calls)
                entries[identity] = Entry(library: library, users: [owner])
                return library
            } catch {
                // A thread the failed library started may still log: it must not reach this host.
                router.detach(owner)
                throw error
            }
        }
    }

    /// Lets go of `library` for `owner`; the last release runs the library's `deinit`,
    /// recorded in the owner's `calls`.
    func release(_ library: LoadedLibrary, owner: ObjectIdentifier, calls: LibraryCallSite) {
        let last = entries.withLock { entries -> Bool in
            guard var entry = entries[library.identity], entry.library === library else { return false }
            entry.users.removeAll { $0 == owner }
            if entry.users.isEmpty {
                entries[library.identity] = nil
                return true
            }
            entries[library.identity] = entry
            return false
        }
        if last { library.finalize(calls: calls) }
        library.router.detach(owner)
        library.invocations.detach(owner)
    }
}
