import Synchronization

/// Fault records for plugin functions run on threads other than a host's dispatch
/// thread (a plugin's own thread that invokes, a thread serving a worker's `invoke`):
/// each run takes an idle record and gives it back, so the records made (never freed)
/// are as many as such calls ever ran at once.
enum CallRecordPool {
    private static let idle = Mutex<[CallRecord]>([])

    /// Runs `body` with a record no other thread uses meanwhile.
    static func with<Result>(_ body: (CallRecord) -> Result) -> Result {
        let record = idle.withLock { $0.popLast() } ?? CallRecord()
        defer { idle.withLock { $0.append(record) } }
        return body(record)
    }
}
