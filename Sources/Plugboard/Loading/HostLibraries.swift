/// The loader's state of one host: the libraries it holds and every file it
/// tried, so a file reached twice (same device and inode) is tried once.
struct HostLibraries {
    /// The libraries this host holds, in load order.
    private var libraries: [LoadedLibrary] = []
    /// The workers this host started, in load order, until ``removeAll()`` or ``forget(_:)``.
    private var workers: [WorkerConnection] = []
    /// Workers started ahead for the files about to be loaded, by path (see ``prestart(_:for:)``).
    private var prestarted: [String: WorkerConnection] = [:]
    /// The libraries whose worker crashed, exited or hung while loading them, with how it ended.
    private(set) var lostWhileLoading: [String: WorkerEnding] = [:]
    /// How often each library's worker was restarted.
    private var restarted: [String: Int] = [:]
    /// The path each file was first tried from, loaded or not.
    private var triedFiles: [FileIdentity: String] = [:]
    /// What each path's file was when it was last tried, loaded or not: a live change compares it
    /// with the file there now.
    private(set) var triedStatus: [String: FileStatus] = [:]

    /// Makes room for `count` more tries, so that noting them grows no table.
    mutating func reserveTries(_ count: Int) {
        triedStatus.reserveCapacity(triedStatus.count + count)
        triedFiles.reserveCapacity(triedFiles.count + count)
    }

    /// Notes that the file at `path` is being tried, as `status` describes it.
    mutating func noteTried(_ path: String, _ status: FileStatus) {
        triedStatus[path] = status
    }

    /// Forgets that the file at `path` was tried: a later try of the same file is a first try
    /// (the file was replaced, or removed and put back).
    mutating func forgetTry(of path: String) {
        if let identity = triedStatus.removeValue(forKey: path)?.identity, triedFiles[identity] == path {
            triedFiles[identity] = nil
        }
    }

    /// Notes that the try from `path` failed: the file's next try is a first try again, as its
    /// cause may be fixed. What the file was stays noted: a live change retries it once it changed.
    mutating func noteFailed(_ path: String) {
        if let identity = triedStatus[path]?.identity, triedFiles[identity] == path { triedFiles[identity] = nil }
    }

    /// The path the file `identity` was tried from before; nil if this is its
    /// first try, which is recorded as `path`.
    mutating func earlierTry(of identity: FileIdentity, at path: String) -> String? {
        if let earlier = triedFiles[identity] { return earlier }
        triedFiles[identity] = path
        return nil
    }

    /// Notes that the worker of the library at `path` was lost while it loaded the library, and how.
    mutating func noteLost(whileLoading path: String, _ ending: WorkerEnding) {
        lostWhileLoading[path] = ending
    }

    /// Forgets how an earlier load of the library at `path` lost its worker: a new load begins, and
    /// only its own ending counts.
    mutating func forgetLost(whileLoading path: String) {
        lostWhileLoading[path] = nil
    }

    /// Holds `library` until it is removed.
    mutating func keep(_ library: LoadedLibrary) {
        libraries.append(library)
    }

    /// Whether the host holds `library` (once more, after a ``remove(loadedFrom:)`` of a second hold).
    func holds(_ library: LoadedLibrary) -> Bool {
        libraries.contains { $0 === library }
    }

    /// Stops holding the library first tried from `path`, and returns it.
    mutating func remove(loadedFrom path: String) -> LoadedLibrary? {
        guard let identity = triedFiles.first(where: { $0.value == path })?.key,
              let index = libraries.firstIndex(where: { $0.identity == identity }) else { return nil }
        return libraries.remove(at: index)
    }

    /// Holds the worker `connection` until it is removed (once, however many loads it serves).
    mutating func keep(_ connection: WorkerConnection) {
        if !workers.contains(where: { $0 === connection }) { workers.append(connection) }
    }

    /// Stops holding `connections`, closed workers nothing reaches any more (no roster, no call under way).
    mutating func forget(_ connections: [WorkerConnection]) {
        workers.removeAll { worker in connections.contains { $0 === worker } }
    }

    /// Holds a worker started ahead for the file at `path`: workers start (exec, runtime)
    /// in parallel while the host loads the files before.
    mutating func prestart(_ connection: WorkerConnection, for path: String) {
        prestarted[path] = connection
    }

    /// The worker started ahead for `path`, if any; it is the caller's from now on.
    mutating func takePrestarted(for path: String) -> WorkerConnection? {
        prestarted.removeValue(forKey: path)
    }

    /// The workers started ahead that no load took (a file skipped as a duplicate, refused or remembered as crashed).
    mutating func takeUnusedPrestarted() -> [WorkerConnection] {
        defer { prestarted = [:] }
        return Array(prestarted.values)
    }

    /// How often the worker of the library at `path` was restarted.
    func restarts(of path: String) -> Int {
        restarted[path, default: 0]
    }

    /// Counts one restart of the worker of the library at `path`.
    mutating func countRestart(of path: String) {
        restarted[path, default: 0] += 1
    }

    /// Forgets the restarts of the library at `path`: a new version of it serves, with restarts of its own.
    mutating func forgetRestarts(of path: String) {
        restarted[path] = nil
    }

    /// Every worker started for the library at `path` (a restarted one too). They stay held, closed or
    /// not, until ``removeAll()`` or, for one a live change closed, ``forget(_:)``: a roster being
    /// dispatched may still reach them.
    func workers(loadedFrom path: String) -> [WorkerConnection] {
        workers.filter { $0.library == path }
    }

    /// Stops holding every library and worker and forgets every try; returns them, last loaded first.
    mutating func removeAll() -> (libraries: [LoadedLibrary], workers: [WorkerConnection]) {
        defer {
            libraries = []
            workers = []
            triedFiles = [:]
            triedStatus = [:]
            restarted = [:]
        }
        return (libraries.reversed(), workers.reversed())
    }
}
