import Synchronization

/// Delivers a library's log messages to every host that currently uses it, and
/// remembers the last error logged, so a failing `init` or `register_plugins`
/// can be explained in the load report. Thread-safe: plugins log from any thread.
final class LogRouter: Sendable {
    typealias Sink = @Sendable (PluginLogRecord) -> Void

    private let sinks = Mutex<[ObjectIdentifier: Sink]>([:])
    private let lastError = Mutex<String?>(nil)

    func attach(_ owner: ObjectIdentifier, _ sink: @escaping Sink) {
        sinks.withLock { $0[owner] = sink }
    }

    func detach(_ owner: ObjectIdentifier) {
        _ = sinks.withLock { $0.removeValue(forKey: owner) }
    }

    func deliver(_ record: PluginLogRecord) {
        if record.level == .error {
            lastError.withLock { $0 = record.message }
        }
        for sink in sinks.withLock({ Array($0.values) }) { sink(record) }
    }

    /// The last error message logged since the previous call, if any.
    func takeLastError() -> String? {
        lastError.withLock { error in
            defer { error = nil }
            return error
        }
    }
}
