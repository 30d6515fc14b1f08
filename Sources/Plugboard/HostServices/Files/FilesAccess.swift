import CPlugboard
import Glibc
import Synchronization

/// One library's way to the files service: here, on the file facade, or in the host, reached from
/// a worker through the channel. The plugin gets the same `pb_files_t` (``FilesTable``) either
/// way; this keeps each of the library's threads' last failure for `last_error`.
final class FilesAccess: Sendable {
    /// Where the service runs.
    enum Place: Sendable {
        /// The facade in this process.
        case here(FilesService)
        /// The host's files service, from a worker.
        case worker(HostFilesProxy)
    }

    let place: Place
    /// The message of each thread's last failed call.
    private let lastErrors = Mutex<[UInt: String]>([:])

    init(_ place: Place) {
        self.place = place
    }

    /// The most bytes one `write` takes: 1 GiB here; from a worker, what one request carries (its
    /// frame, less room for the rest): checked before the plugin's bytes are copied.
    var writeLimit: Int {
        switch place {
        case .here: FilesService.maximumWriteBytes
        case .worker: ByteCount.valueLimit
        }
    }

    /// Runs `request` where the service is (here, unless `gate` denies it; in a worker, the host
    /// applies its own gate) and remembers its failure, if any, for the calling thread.
    func perform(_ request: FilesRequest, gate: ServiceGate) -> FilesOutcome {
        let outcome = switch place {
        case .here(let service): service.perform(request, gate: gate)
        case .worker(let proxy): proxy.call(request)
        }
        remember(outcome.status == PB_OK ? nil : outcome.message)
        return outcome
    }

    /// Records `message` as the calling thread's last failure (nil: its last call succeeded).
    func remember(_ message: String?) {
        lastErrors.withLock { $0[Self.thread] = message }
    }

    /// The message of the calling thread's last failed call ("" after a success).
    var lastError: String {
        lastErrors.withLock { $0[Self.thread] } ?? ""
    }

    private static var thread: UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
    }
}
