import Synchronization

/// How many refused notification-bus calls of one library the host logs: the first
/// ``limit``, the last of them saying that later ones are not logged. The bus has no error
/// buffer, so the log is how an author learns why a call was refused; a plugin looping on
/// a refused call must not flood it. Thread-safe; held in place by its owner (not an object of
/// its own: every library has one).
struct RefusalLogBudget: ~Copyable, Sendable {
    /// The refusals logged per library.
    static let limit = 16

    private let refused = Atomic<Int>(0)

    /// What to add to the next refusal's log line: "" to log it, a note for the last one
    /// logged, nil when it is past the budget (not logged).
    func spend() -> String? {
        let count = refused.wrappingAdd(1, ordering: .relaxed).newValue
        if count < Self.limit { return "" }
        if count == Self.limit { return " (later refused notification calls of this library are not logged)" }
        return nil
    }
}
