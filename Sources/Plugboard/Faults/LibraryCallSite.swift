import CFaultReporter
import PlugboardWorkerProtocol

/// How the host calls a library's own functions (`plugboard_entry`, `init`,
/// `register_plugins`, `deinit`): each call recorded in the host's
/// ``CallRecord``, so a crash or a timeout names the stage, and announced first
/// to `announce` when there is one (a worker tells its host which stage it is in).
struct LibraryCallSite {
    /// The host's record.
    let record: CallRecord
    /// Told each library function before it runs.
    let announce: (@Sendable (LibraryFunction) -> Void)?

    /// Runs `body`, one call of `label`'s library function `function`.
    func around<Result>(_ function: LibraryFunction, _ label: UnsafePointer<pbf_label_t>, _ body: () -> Result) -> Result {
        announce?(function)
        let outer = record.begin(function.callbackName)
        record.enter(label)
        defer { record.end(resuming: outer) }
        return body()
    }
}
