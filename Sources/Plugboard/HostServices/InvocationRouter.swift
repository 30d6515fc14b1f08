import Synchronization

/// Where one library's `invoke` calls go: the function invoker of a host that
/// uses the library (the first one still attached, as a library shared by hosts
/// is initialized once). Thread-safe: plugins invoke from any thread.
final class InvocationRouter: Sendable {
    private let invokers = Mutex<[(owner: ObjectIdentifier, invoker: FunctionInvoker)]>([])

    /// Serves this library's invocations with `owner`'s invoker too, until ``detach(_:)``.
    func attach(_ owner: ObjectIdentifier, _ invoker: FunctionInvoker) {
        invokers.withLock { invokers in
            if !invokers.contains(where: { $0.owner == owner }) { invokers.append((owner, invoker)) }
        }
    }

    /// Stops using `owner`'s invoker: a host that let go of the library serves it no more.
    func detach(_ owner: ObjectIdentifier) {
        invokers.withLock { $0.removeAll { $0.owner == owner } }
    }

    /// The invoker that serves the library now, if a host still uses it.
    var invoker: FunctionInvoker? {
        invokers.withLock { $0.first?.invoker }
    }
}
