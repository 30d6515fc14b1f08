import CFaultReporter
import CPlugboard
import Glibc
import Synchronization

/// A plugin's place among the observers (its dispatch order) and who runs in its calls.
struct ObserverRank {
    /// 0 for the first plugin in dispatch order.
    let rank: Int
    /// For fault and timeout messages.
    let label: UnsafePointer<pbf_label_t>
}

/// What a worker's bus sends to the host: a post (sender, name, payload, depth), an
/// observation made (token, receiver, name) and one ended (token).
struct NotificationRelay: Sendable {
    let post: @Sendable (_ sender: String, _ name: String, _ payload: String, _ depth: Int) -> Void
    let observed: @Sendable (_ token: UInt64, _ receiver: String, _ name: String) -> Void
    let stopped: @Sendable (_ token: UInt64) -> Void
}

/// One host's notification bus: the observers, the queue of posted notifications,
/// and the notifications dropped for their depth. Thread-safe: plugins post and
/// observe from any thread; only ``drain(rank:deliver:)`` calls observers, on the
/// host's dispatch thread.
///
/// The order is the header's: posting order, breadth first (a notification posted
/// by an observer waits behind those already queued), each notification to its
/// observers in dispatch order (``drain(rank:deliver:)``'s `rank`, then the
/// order of the `observe` calls).
final class NotificationBus: Sendable {
    /// The sender and receiver named for the host itself: its embedding API and an events script.
    static let hostSender = "plugboard"
    /// The deepest notification delivered (`PB_NOTIFICATION_DEPTH_MAX`).
    static let depthLimit = Int(PB_NOTIFICATION_DEPTH_MAX)
    /// The most notifications waiting for delivery (`PB_NOTIFICATION_QUEUE_MAX`).
    static let queueLimit = Int(PB_NOTIFICATION_QUEUE_MAX)
    /// The most observations one owner holds (`PB_NOTIFICATION_OBSERVERS_MAX`); the embedding API has no limit.
    static let observationLimit = Int(PB_NOTIFICATION_OBSERVERS_MAX)

    /// How an observer is called.
    enum Callback: @unchecked Sendable {
        /// A C plugin's callback in this process, with its `ctx` (the plugin's; never read by the host).
        case native(pb_notification_fn, ctx: UnsafeMutableRawPointer?)
        /// A closure of the host's embedding API.
        case swift(@Sendable (PluginNotification) -> Void)
        /// An observer in a worker, which the host asks to call it (`deliver`) by the worker's `token`.
        case worker(WorkerConnection, token: UInt64)
    }

    /// One observation.
    struct Observer: Sendable {
        /// The bus's number for it, increasing: the order of the `observe` calls.
        let token: UInt64
        /// The notification name it observes.
        let name: String
        /// Who receives: a plugin id, or ``NotificationBus/hostSender``.
        let receiver: String
        /// Who may end it: the library initialization (or worker) that made it; nil for the embedding API.
        let owner: ObjectIdentifier?
        let callback: Callback
    }

    private struct State {
        var observers: [Observer] = []
        var queue: [(notification: PluginNotification, depth: Int)] = []
        var dropped: [PostedNotification] = []
        var nextToken: UInt64 = 1
        /// The thread calling an observer now and that notification's depth: in a worker, set
        /// during ``deliver(_:to:depth:call:)``; in the host, during the whole ``drain(rank:deliver:)``.
        var delivering: (thread: pthread_t, depth: Int)?
    }

    private let state = Mutex(State())
    /// In a worker: where posts and observations go (the host's bus is the one that delivers).
    private let relay = Mutex<NotificationRelay?>(nil)
    /// Notifications queued or dropped and not yet reported: lets an event with nothing
    /// posted skip the drain for one atomic load.
    private let pending = Atomic<Int>(0)

    /// Counts the observations ended: a drain re-checks that an observer still observes only after one ended.
    private let removals = Atomic<UInt64>(0)

    /// Whether anything was posted since the last drain.
    var hasPending: Bool { pending.load(ordering: .acquiring) > 0 }

    /// Queues `name` with `payload` from `sender`. Its depth is 1, or `depth` when given (a worker
    /// knows it), and at least one more than the notification being delivered while ``drain(rank:deliver:)``
    /// runs, whichever thread or worker posts: an observer that posts through a thread of its own
    /// (or a worker that sends a forged depth) cannot loop past the limit. A notification deeper
    /// than ``depthLimit`` is dropped and counted. In a worker (``relay(to:)``), the notification
    /// goes to the host with its depth instead. False, and nothing queued or counted, when
    /// ``queueLimit`` notifications wait already, or as many were dropped since the last report (a
    /// thread, or a worker, posting between deliveries without end).
    @discardableResult
    func post(_ name: String, payload: String, sender: String, depth: Int? = nil) -> Bool {
        if let relay = relay.withLock({ $0 }) {
            relay.post(sender, name, payload, depth ?? currentDepth + 1)
            return true
        }
        return state.withLock { state in
            let depth = max(depth ?? 1, (state.delivering?.depth ?? 0) + 1)
            if depth <= Self.depthLimit {
                guard state.queue.count < Self.queueLimit else { return false }
                state.queue.append((PluginNotification(name: name, payload: payload, sender: sender), depth))
            } else {
                guard state.dropped.count < Self.queueLimit else { return false }
                state.dropped.append(PostedNotification(name: name, sender: sender, depth: depth))
            }
            pending.add(1, ordering: .releasing)
            return true
        }
    }

    /// The depth of the notification the calling thread is delivering, 0 when none.
    var currentDepth: Int {
        state.withLock { state in
            state.delivering.map { pthread_equal($0.thread, pthread_self()) != 0 ? $0.depth : 0 } ?? 0
        }
    }

    /// Adds an observer of `name` for `receiver`, which `owner` may end; returns its token (never 0),
    /// or nil when `owner` holds ``observationLimit`` observations already. In a worker, the host is
    /// told of it too.
    func observe(_ name: String, receiver: String, owner: ObjectIdentifier?, _ callback: Callback) -> UInt64? {
        let token = state.withLock { state -> UInt64? in
            if let owner, state.observers.count(where: { $0.owner == owner }) >= Self.observationLimit { return nil }
            defer { state.nextToken += 1 }
            state.observers.append(Observer(token: state.nextToken, name: name, receiver: receiver, owner: owner,
                                            callback: callback))
            return state.nextToken
        }
        guard let token else { return nil }
        relay.withLock { $0 }?.observed(token, receiver, name)
        return token
    }

    /// Ends the observation `token` if `owner` made it; false when there is no such observation of `owner`.
    /// In a worker, the host is told of it too.
    func stopObserving(_ token: UInt64, owner: ObjectIdentifier?) -> Bool {
        let stopped = state.withLock { state in
            guard let index = state.observers.firstIndex(where: { $0.token == token && $0.owner == owner }) else {
                return false
            }
            state.observers.remove(at: index)
            removals.add(1, ordering: .releasing)
            return true
        }
        if stopped { relay.withLock { $0 }?.stopped(token) }
        return stopped
    }

    /// Ends the observer a worker announced as `token` (its own number), if `owner` (the worker's connection) made it.
    func stopWorkerObserving(_ token: UInt64, owner: ObjectIdentifier) {
        state.withLock { state in
            state.observers.removeAll { observer in
                guard observer.owner == owner, case .worker(_, let workerToken) = observer.callback else { return false }
                return workerToken == token
            }
            removals.add(1, ordering: .releasing)
        }
    }

    /// Makes this a worker's bus: posts, observations and their ends go to `relay`; the
    /// host delivers, and asks for each call with ``deliver(_:to:depth:call:)``.
    func relay(to relay: NotificationRelay) {
        self.relay.withLock { $0 = relay }
    }

    /// Calls the observer `token` with `call` for `notification`, `depth` deep (a post it makes
    /// is one deeper); nothing when it ended meanwhile. A worker's side of a delivery.
    func deliver(_ notification: PluginNotification, to token: UInt64, depth: Int, call: (Observer) -> Void) {
        let observer = state.withLock { state -> Observer? in
            guard let observer = state.observers.first(where: { $0.token == token }) else { return nil }
            state.delivering = (pthread_self(), depth)
            return observer
        }
        guard let observer else { return }
        call(observer)
        state.withLock { $0.delivering = nil }
    }

    /// Calls a C observer with the notification's strings, valid during the call.
    static func call(_ callback: pb_notification_fn, _ ctx: UnsafeMutableRawPointer?, _ notification: PluginNotification) {
        notification.name.withCString { name in
            notification.payload.withCString { payload in
                notification.sender.withCString { callback(ctx, name, payload, $0) }
            }
        }
    }

    /// The names `receivers` observe now, sorted, each once.
    func names(observedBy receivers: Set<String>) -> [String] {
        Set(state.withLock { $0.observers }.filter { receivers.contains($0.receiver) }.map(\.name)).sorted()
    }

    /// Ends every observation `owner` made (a library that ended, a worker that failed).
    func removeObservers(of owner: ObjectIdentifier) {
        state.withLock { state in
            state.observers.removeAll { $0.owner == owner }
            removals.add(1, ordering: .releasing)
        }
    }

    /// Ends every observation and forgets the queue.
    func removeAll() {
        state.withLock { state in
            pending.subtract(state.queue.count + state.dropped.count, ordering: .relaxed)
            state = State(nextToken: state.nextToken)
            removals.add(1, ordering: .releasing)
        }
    }

    /// The observers of `name` whose receiver `rank` places, in delivery order.
    private func observers(of name: String, rank: (String) -> Int?) -> [Observer] {
        var ranked: [(observer: Observer, rank: Int)] = []
        for observer in state.withLock({ $0.observers }) where observer.name == name {
            if let place = rank(observer.receiver) { ranked.append((observer, place)) }
        }
        ranked.sort { lhs, rhs in lhs.rank != rhs.rank ? lhs.rank < rhs.rank : lhs.observer.token < rhs.observer.token }
        return ranked.map(\.observer)
    }

    /// Delivers the queue until it is empty, on the calling thread (the dispatch thread):
    /// each notification to the observers of its name whose receiver `rank` places (lower
    /// first; nil: not registered with the host, skipped), with `deliver`, which returns the
    /// call's duration (nil when not timed) and its failure. An observation ended during the
    /// drain is not called again. It stops, dropping what is left, after the notification that
    /// reaches ``NotificationReport/deliveryLimit`` deliveries, or when `interrupted` says so
    /// (asked after each notification). Returns what was delivered, unobserved and dropped.
    func drain(rank: (String) -> Int?, interrupted: () -> Bool,
               deliver: (Observer, PluginNotification, _ depth: Int) -> (nanoseconds: UInt64?, failure: String?))
        -> NotificationReport {
        var report = NotificationReport()
        while report.stopped == nil, let (notification, depth) = state.withLock({ state -> (PluginNotification, Int)? in
            guard !state.queue.isEmpty else { return nil }
            pending.subtract(1, ordering: .relaxed)
            return state.queue.removeFirst()
        }) {
            let ended = removals.load(ordering: .acquiring)
            let observers = observers(of: notification.name, rank: rank)
            guard !observers.isEmpty else {
                report.unobserved.append(PostedNotification(name: notification.name, sender: notification.sender, depth: depth))
                continue
            }
            state.withLock { $0.delivering = (pthread_self(), depth) }
            for observer in observers {
                if removals.load(ordering: .acquiring) != ended,
                   !state.withLock({ $0.observers.contains { $0.token == observer.token } }) { continue }
                let outcome = deliver(observer, notification, depth)
                report.deliveries.append(NotificationDelivery(
                    name: notification.name, sender: notification.sender, receiver: observer.receiver, depth: depth,
                    nanoseconds: outcome.nanoseconds, failure: outcome.failure))
            }
            report.stopped = report.deliveries.count >= NotificationReport.deliveryLimit ? .deliveryLimit
                : interrupted() ? .interrupted : nil
        }
        if report.stopped != nil {
            report.undelivered = state.withLock { state in
                defer { state.queue = [] }
                pending.subtract(state.queue.count, ordering: .relaxed)
                return state.queue.map { PostedNotification(name: $0.0.name, sender: $0.0.sender, depth: $0.1) }
            }
        }
        report.dropped = state.withLock { state in
            state.delivering = nil
            defer { state.dropped = [] }
            pending.subtract(state.dropped.count, ordering: .relaxed)
            return state.dropped
        }
        return report
    }
}
