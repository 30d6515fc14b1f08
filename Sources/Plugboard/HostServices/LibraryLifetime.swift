import Glibc
import PlugboardSystem
import Synchronization

/// Whether one initialization of a library may still use the host services,
/// and the one warning its first misuse after the end gets.
///
/// A library ends when its `deinit` has run, or when its `init` returned false
/// (a thread it started may still call in). From then on every service entry
/// point (log, each files function, a fetch completion) asks ``admits(_:)``:
/// the call is ignored, and the first such call is reported once, naming the
/// library. Every call is counted in ``census`` by thread. Thread-safe.
final class LibraryLifetime: Sendable {
    /// Why the library may no longer call the host.
    enum Ending: UInt8 {
        /// Between a successful `init` and `deinit`: every call is served.
        case running
        /// `deinit` has returned.
        case deinitialized
        /// `init` returned false; threads it started may still call.
        case initFailed
    }

    let libraryPath: String
    private let router: LogRouter
    private let ending = Atomic<UInt8>(Ending.running.rawValue)
    private let reported = Atomic<Bool>(false)
    /// The calls by thread; made where the library's `init` runs.
    let census = ServiceCallCensus()

    init(libraryPath: String, router: LogRouter) {
        self.libraryPath = libraryPath
        self.router = router
    }

    /// Marks the library ended; every later service call is refused.
    func end(_ why: Ending) {
        ending.store(why.rawValue, ordering: .releasing)
    }

    /// True while the library runs; otherwise reports the first misuse (`service`
    /// names the call, e.g. "log") and returns false.
    func admits(_ service: String) -> Bool {
        let state = Ending(rawValue: ending.load(ordering: .acquiring)) ?? .running
        census.record(admitted: state == .running)
        guard state != .running else { return true }
        guard !reported.exchange(true, ordering: .relaxed) else { return false }
        let when = state == .initFailed ? "its init returned false" : "its deinit"
        let record = PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .warning,
                                     message: "\(libraryPath) called \(service) after \(when); ignored (reported once)")
        if !router.deliver(record) {
            // No host listens any more (an atexit handler, a thread outliving the host): standard error it is.
            let line = Array("plugboard: warning: \(record.message)\n".utf8)
            _ = try? systemCall { line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) } }
        }
        return false
    }
}
