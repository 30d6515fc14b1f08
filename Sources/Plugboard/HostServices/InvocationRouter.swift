import Synchronization

/// Where one library's `invoke` calls and notifications go: the function invoker
/// and the notification bus of a host that uses the library (the first one still
/// attached, as a library shared by hosts is initialized once). Thread-safe:
/// plugins invoke and post from any thread.
final class InvocationRouter: Sendable {
    private let hosts = Mutex<[(owner: ObjectIdentifier, invoker: FunctionInvoker, bus: NotificationBus)]>([])

    /// Serves this library's invocations with `owner`'s invoker and its notifications with
    /// `owner`'s bus too, until ``detach(_:)``.
    func attach(_ owner: ObjectIdentifier, _ invoker: FunctionInvoker, _ bus: NotificationBus) {
        hosts.withLock { hosts in
            if !hosts.contains(where: { $0.owner == owner }) { hosts.append((owner, invoker, bus)) }
        }
    }

    /// Stops using `owner`'s invoker and bus: a host that let go of the library serves it no more.
    func detach(_ owner: ObjectIdentifier) {
        hosts.withLock { $0.removeAll { $0.owner == owner } }
    }

    /// The invoker that serves the library now, if a host still uses it.
    var invoker: FunctionInvoker? {
        hosts.withLock { $0.first?.invoker }
    }

    /// The bus that serves the library now, if a host still uses it.
    var bus: NotificationBus? {
        hosts.withLock { $0.first?.bus }
    }
}
