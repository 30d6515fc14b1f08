import CPlugboard

/// Makes the `pb_fetch_completion_t` handles given to one library's plugins.
///
/// A handle, and what it answers to, is never freed, on purpose: a plugin may
/// answer late, twice, from a thread, or from an `atexit` handler after its
/// `deinit`, and that call must find valid memory. Until the library's end the
/// answer goes to the notification (which ignores and reports a late or second
/// one); after it, the call is ignored and reported once (``LibraryLifetime``).
/// It costs a few dozen bytes per plugin per remote notification. A value: it holds only the
/// library's lifetime, and loading a library makes one.
struct FetchCompletionPool: Sendable {
    /// What one handle answers to.
    private final class Record: Sendable {
        let completion: FetchCompletion
        let lifetime: LibraryLifetime
        init(_ completion: FetchCompletion, lifetime: LibraryLifetime) {
            self.completion = completion
            self.lifetime = lifetime
        }
    }

    private let lifetime: LibraryLifetime

    init(lifetime: LibraryLifetime) {
        self.lifetime = lifetime
    }

    /// A new C handle that forwards to `completion`; valid for the life of the process.
    func handle(for completion: FetchCompletion) -> UnsafePointer<pb_fetch_completion_t> {
        let record = Unmanaged.passRetained(Record(completion, lifetime: lifetime))
        let pointer = UnsafeMutablePointer<pb_fetch_completion_t>.allocate(capacity: 1)
        pointer.initialize(to: pb_fetch_completion_t(
            struct_size: UInt32(MemoryLayout<pb_fetch_completion_t>.size), host_data: record.toOpaque(), complete: Self.complete))
        return UnsafePointer(pointer)
    }

    /// `pb_fetch_completion_t.complete`: thread-safe; the aggregation ignores and reports misuse.
    private static let complete: @convention(c) (UnsafePointer<pb_fetch_completion_t>?, pb_fetch_result_t) -> Void = {
        handle, value in
        guard let data = handle?.pointee.host_data else { return }
        let record = Unmanaged<Record>.fromOpaque(data).takeUnretainedValue()
        guard record.lifetime.admits("a fetch completion") else { return }
        if let result = FetchResult(abiValue: value) {
            record.completion(result)
        } else {
            record.completion.reject("answered with \(value), which is not a PB_FETCH_* value; ignored")
        }
    }
}
