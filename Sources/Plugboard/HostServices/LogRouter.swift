import Synchronization

/// Delivers a library's log messages, and the notification-bus calls the host refused it, to
/// every host that currently uses it, and remembers the last error logged, so a failing `init`
/// or `register_plugins` can be explained in the load report. Thread-safe: plugins log from any thread.
final class LogRouter: Sendable {
    typealias Sink = @Sendable (PluginLogRecord) -> Void
    /// Receives the library's refused bus calls as values (``LibraryLoader/busRefusalHandler``).
    typealias RefusalSink = @Sendable (BusRefusal) -> Void

    /// Each attached host's sinks: nearly always one host, so a list searched costs less than a
    /// dictionary made (one per library).
    private let sinks = Mutex<[(owner: ObjectIdentifier, log: Sink, refusals: RefusalSink?)]>([])
    private let lastError = Mutex<String?>(nil)

    /// Sends this library's messages to `sink` too, and its refused bus calls to `refusals`
    /// when given, until ``detach(_:)`` for `owner`.
    func attach(_ owner: ObjectIdentifier, _ sink: @escaping Sink, refusals: RefusalSink? = nil) {
        sinks.withLock { sinks in
            if let index = sinks.firstIndex(where: { $0.owner == owner }) {
                sinks[index] = (owner, sink, refusals)
            } else {
                sinks.append((owner, sink, refusals))
            }
        }
    }

    /// Stops sending to `owner`'s sink: a host that let go of the library hears nothing more from it.
    func detach(_ owner: ObjectIdentifier) {
        sinks.withLock { $0.removeAll { $0.owner == owner } }
    }

    /// Hands `record` to every attached host; false when none is attached.
    @discardableResult
    func deliver(_ record: PluginLogRecord) -> Bool {
        if record.level == .error {
            lastError.withLock { $0 = record.message }
        }
        let current = sinks.withLock { $0.map(\.log) }
        for sink in current { sink(record) }
        return !current.isEmpty
    }

    /// Hands `refusal` to every attached host that takes refusals.
    func deliver(_ refusal: BusRefusal) {
        for sink in sinks.withLock({ $0.compactMap(\.refusals) }) { sink(refusal) }
    }

    /// The last error message logged since the previous call, if any.
    func takeLastError() -> String? {
        lastError.withLock { error in
            defer { error = nil }
            return error
        }
    }
}
