import CPlugboard
import Synchronization

/// The `pb_fetch_completion_t` handles given to one library's plugins.
///
/// The header promises a handle stays valid until the library's `deinit`, so a
/// plugin may answer late or twice without touching freed memory; the pool
/// keeps every handle until then and frees them all at once.
final class FetchCompletionPool: Sendable {
    /// What one handle answers to.
    final class Record: Sendable {
        let completion: FetchCompletion
        init(_ completion: FetchCompletion) { self.completion = completion }
    }

    private struct Handle: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<pb_fetch_completion_t>
        let record: Unmanaged<Record>
    }

    private let handles = Mutex<[Handle]>([])

    /// A new C handle that forwards to `completion`.
    func handle(for completion: FetchCompletion) -> UnsafePointer<pb_fetch_completion_t> {
        let record = Unmanaged.passRetained(Record(completion))
        let pointer = UnsafeMutablePointer<pb_fetch_completion_t>.allocate(capacity: 1)
        pointer.initialize(to: pb_fetch_completion_t(
            struct_size: UInt32(MemoryLayout<pb_fetch_completion_t>.size), host_data: record.toOpaque(), complete: Self.complete))
        handles.withLock { $0.append(Handle(pointer: pointer, record: record)) }
        return UnsafePointer(pointer)
    }

    /// Frees every handle; called after the library's `deinit`.
    func releaseAll() {
        let all = handles.withLock { handles in
            defer { handles = [] }
            return handles
        }
        for handle in all {
            handle.pointer.deinitialize(count: 1)
            handle.pointer.deallocate()
            handle.record.release()
        }
    }

    deinit { releaseAll() }

    /// `pb_fetch_completion_t.complete`: thread-safe; the aggregation ignores and reports misuse.
    private static let complete: @convention(c) (UnsafePointer<pb_fetch_completion_t>?, pb_fetch_result_t) -> Void = {
        handle, value in
        guard let data = handle?.pointee.host_data else { return }
        let completion = Unmanaged<Record>.fromOpaque(data).takeUnretainedValue().completion
        if let result = FetchResult(abiValue: value) {
            completion(result)
        } else {
            completion.reject("answered with \(value), which is not a PB_FETCH_* value; ignored")
        }
    }
}
