/// The answer handle for one remote notification; call it exactly once.
///
/// Thread-safe. A second call, or a call after the host's deadline, is ignored
/// and reported.
public struct FetchCompletion: Sendable {
    private let answer: @Sendable (FetchResult) -> Void
    private let misuse: @Sendable (String) -> Void
    private let abstention: @Sendable () -> Void

    /// Makes a completion that forwards the answer to `answer`.
    public init(_ answer: @escaping @Sendable (FetchResult) -> Void) {
        self.init(answer: answer, misuse: { _ in }, abstention: {})
    }

    package init(answer: @escaping @Sendable (FetchResult) -> Void, misuse: @escaping @Sendable (String) -> Void,
         abstention: @escaping @Sendable () -> Void) {
        self.answer = answer
        self.misuse = misuse
        self.abstention = abstention
    }

    /// Answers the notification.
    public func callAsFunction(_ result: FetchResult) {
        answer(result)
    }

    /// Reports an answer that could not be understood (from a C plugin), without answering.
    package func reject(_ problem: String) {
        misuse(problem)
    }

    /// Takes the plugin out of this notification: not waited for, not counted (a C plugin's NULL slot).
    package func abstain() {
        abstention()
    }
}
