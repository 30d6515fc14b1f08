import CFaultReporter

/// How the host calls a library's own functions (`plugboard_entry`, `init`,
/// `register_plugins`, `deinit`): each call recorded in the host's
/// ``CallRecord``, so a crash or a timeout names the stage, and announced first
/// to `announce` when there is one (a worker tells its host which stage it is in).
struct LibraryCallSite {
    /// The host's record.
    let record: CallRecord
    /// Told the name of each stage before it runs.
    let announce: (@Sendable (StaticString) -> Void)?

    /// Runs `body`, one call of `label`'s code named `callback`.
    func around<Result>(_ callback: StaticString, _ label: UnsafePointer<pbf_label_t>, _ body: () -> Result) -> Result {
        announce?(callback)
        record.begin(callback)
        record.enter(label)
        defer { record.leave() }
        return body()
    }
}
