import Foundation
@testable import Plugboard
import Synchronization
import Testing

/// The bus's queue logic on its own: order, depth, unobserved, ending an observation.
@Suite struct NotificationBusTests {
    /// What observers received, as "receiver: name payload (depth)".
    final class Received: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Drains `bus` with the plugins ranked as listed (the host last), calling Swift observers.
    static func drain(_ bus: NotificationBus, ranks: [String], interrupted: () -> Bool = { false }) -> NotificationReport {
        bus.drain { receiver in
            receiver == NotificationBus.hostSender ? Int.max : ranks.firstIndex(of: receiver)
        } interrupted: {
            interrupted()
        } deliver: { observer, notification, _ in
            if case .swift(let callback) = observer.callback { callback(notification) }
            return (nil, nil)
        }
    }

    /// Observers that each post again fan out (four deliveries per notification, sixteen deep): the
    /// delivery stops after the notification that reaches the limit, and drops the queue, reported.
    @Test func aCascadeStopsAtTheDeliveryLimit() {
        let bus = NotificationBus()
        for _ in 0..<4 {
            _ = bus.observe("com.x.y", receiver: "com.a", owner: nil, .swift { _ in _ = bus.post("com.x.y", payload: "{}", sender: "com.a") })
        }
        bus.post("com.x.y", payload: "{}", sender: "com.c")
        let report = Self.drain(bus, ranks: ["com.a"])
        #expect(report.stopped == .deliveryLimit)
        #expect((NotificationReport.deliveryLimit..<NotificationReport.deliveryLimit + 4).contains(report.deliveries.count),
                "\(report.deliveries.count)")
        #expect(!report.undelivered.isEmpty && report.undelivered.allSatisfy { $0.name == "com.x.y" })
        #expect(!bus.hasPending && Self.drain(bus, ranks: ["com.a"]).isEmpty, "the rest was dropped, not left for later")
    }

    /// A report written before a delivery could stop decodes, with nothing undelivered.
    @Test func aReportWithoutTheStopDecodes() throws {
        let old = #"{"deliveries":[],"unobserved":[{"name":"com.x.y","sender":"com.c","depth":1}],"dropped":[]}"#
        let report = try JSONDecoder().decode(NotificationReport.self, from: Data(old.utf8))
        #expect(report.stopped == nil && report.undelivered.isEmpty && report.unobserved.map(\.name) == ["com.x.y"])
    }

    /// An interruption stops the delivery after the notification being delivered.
    @Test func anInterruptionStopsTheDelivery() {
        let bus = NotificationBus()
        _ = bus.observe("com.x.y", receiver: "com.a", owner: nil, .swift { _ in })
        for _ in 0..<3 { bus.post("com.x.y", payload: "{}", sender: "com.c") }
        let report = Self.drain(bus, ranks: ["com.a"]) { true }
        #expect(report.stopped == .interrupted && report.deliveries.count == 1 && report.undelivered.count == 2, "\(report)")
    }

    @Test func deliversInPostingOrderToObserversInRankOrderThenObservationOrder() {
        let bus = NotificationBus()
        let received = Received()
        for (receiver, tag) in [("com.b", "1"), ("com.a", "1"), ("com.b", "2")] {
            _ = bus.observe("com.x.y", receiver: receiver, owner: nil, .swift { received.add("\(receiver)#\(tag) \($0.payload)") })
        }
        bus.post("com.x.y", payload: "{\"n\":1}", sender: "com.c")
        bus.post("com.x.y", payload: "{\"n\":2}", sender: "com.c")
        let report = Self.drain(bus, ranks: ["com.a", "com.b"])
        #expect(received.all == ["com.a#1 {\"n\":1}", "com.b#1 {\"n\":1}", "com.b#2 {\"n\":1}",
                                 "com.a#1 {\"n\":2}", "com.b#1 {\"n\":2}", "com.b#2 {\"n\":2}"])
        #expect(report.deliveries.map(\.receiver) == ["com.a", "com.b", "com.b", "com.a", "com.b", "com.b"])
        #expect(report.deliveries.allSatisfy { $0.sender == "com.c" && $0.depth == 1 })
        #expect(!bus.hasPending)
    }

    @Test func aPostFromAnObserverIsQueuedBehindTheOthersOneLevelDeeper() {
        let bus = NotificationBus()
        let received = Received()
        _ = bus.observe("com.x.first", receiver: "com.a", owner: nil, .swift { _ in
            received.add("first")
            bus.post("com.x.inner", payload: "{}", sender: "com.a")
            received.add("first returns")
        })
        _ = bus.observe("com.x.second", receiver: "com.a", owner: nil, .swift { _ in received.add("second") })
        _ = bus.observe("com.x.inner", receiver: "com.a", owner: nil, .swift { _ in received.add("inner") })
        bus.post("com.x.first", payload: "{}", sender: "com.c")
        bus.post("com.x.second", payload: "{}", sender: "com.c")
        let report = Self.drain(bus, ranks: ["com.a"])
        #expect(received.all == ["first", "first returns", "second", "inner"])
        #expect(report.deliveries.map(\.depth) == [1, 1, 2])
    }

    @Test func anObserverThatPostsItsOwnNotificationStopsAtTheDepthLimit() {
        let bus = NotificationBus()
        _ = bus.observe("com.x.loop", receiver: "com.a", owner: nil, .swift { _ in
            bus.post("com.x.loop", payload: "{}", sender: "com.a")
        })
        bus.post("com.x.loop", payload: "{}", sender: "com.a")
        let report = Self.drain(bus, ranks: ["com.a"])
        #expect(report.deliveries.count == NotificationBus.depthLimit)
        #expect(report.dropped == [PostedNotification(name: "com.x.loop", sender: "com.a", depth: NotificationBus.depthLimit + 1)])
        #expect(!bus.hasPending)
    }

    @Test func unobservedAndUnrankedReceiversAreCountedNotCalled() {
        let bus = NotificationBus()
        let received = Received()
        _ = bus.observe("com.x.y", receiver: "com.gone", owner: nil, .swift { _ in received.add("gone") })
        bus.post("com.x.y", payload: "{}", sender: NotificationBus.hostSender)
        bus.post("com.x.nobody", payload: "{}", sender: NotificationBus.hostSender)
        let report = Self.drain(bus, ranks: ["com.a"])
        #expect(received.all.isEmpty)
        #expect(report.unobserved.map(\.name) == ["com.x.y", "com.x.nobody"])
    }

    @Test func anObservationEndedDuringADrainIsNotCalledAgainAndOnlyItsOwnerMayEndIt() throws {
        let bus = NotificationBus()
        let received = Received()
        let owner = ObjectIdentifier(Received.self)
        let tokens = Mutex<[UInt64]>([])
        let first = try #require(bus.observe("com.x.y", receiver: "com.a", owner: owner, .swift { _ in
            received.add("first")
            for token in tokens.withLock({ $0 }) { _ = bus.stopObserving(token, owner: owner) }
        }))
        let second = try #require(bus.observe("com.x.y", receiver: "com.a", owner: owner, .swift { _ in received.add("second") }))
        tokens.withLock { $0 = [first, second] }
        #expect(!bus.stopObserving(first, owner: nil), "another owner cannot end it")
        bus.post("com.x.y", payload: "{}", sender: "com.c")
        bus.post("com.x.y", payload: "{}", sender: "com.c")
        _ = Self.drain(bus, ranks: ["com.a"])
        #expect(received.all == ["first"])
        #expect(first != 0 && second == first + 1)
    }

    @Test func anOwnerHoldsAtMostTheObservationLimitAndMayObserveAgainAfterStopping() throws {
        let bus = NotificationBus()
        let owner = ObjectIdentifier(Received.self)
        var tokens: [UInt64] = []
        for _ in 0..<NotificationBus.observationLimit {
            tokens.append(try #require(bus.observe("com.x.y", receiver: "com.a", owner: owner, .swift { _ in })))
        }
        #expect(bus.observe("com.x.y", receiver: "com.a", owner: owner, .swift { _ in }) == nil, "one past the limit")
        #expect(bus.observe("com.x.y", receiver: "com.b", owner: ObjectIdentifier(NotificationBus.self), .swift { _ in }) != nil,
                "another owner has its own limit")
        #expect(bus.observe("com.x.y", receiver: NotificationBus.hostSender, owner: nil, .swift { _ in }) != nil,
                "the embedding API has none")
        #expect(bus.stopObserving(tokens[0], owner: owner))
        #expect(bus.observe("com.x.y", receiver: "com.a", owner: owner, .swift { _ in }) != nil, "room again after a stop")
    }

    @Test func aPostPastTheQueueLimitIsRefusedUntilTheQueueIsDelivered() {
        let bus = NotificationBus()
        for index in 0..<NotificationBus.queueLimit {
            #expect(bus.post("com.x.y", payload: "{}", sender: "com.c"), "post \(index)")
        }
        #expect(!bus.post("com.x.y", payload: "{}", sender: "com.c"), "one past the limit")
        let report = Self.drain(bus, ranks: [])
        #expect(report.unobserved.count == NotificationBus.queueLimit, "the refused one was never queued")
        #expect(bus.post("com.x.y", payload: "{}", sender: "com.c"), "room again after the drain")
    }

    /// Posts too deep to deliver (a worker can send any depth) are counted up to the same limit,
    /// then refused, so they cannot grow the host's memory between reports.
    @Test func postsTooDeepAreCountedUpToTheQueueLimitThenRefused() {
        let bus = NotificationBus()
        let tooDeep = NotificationBus.depthLimit + 1
        for index in 0..<NotificationBus.queueLimit {
            #expect(bus.post("com.x.y", payload: "{}", sender: "com.c", depth: tooDeep), "post \(index)")
        }
        #expect(!bus.post("com.x.y", payload: "{}", sender: "com.c", depth: tooDeep), "one past the limit")
        let report = Self.drain(bus, ranks: [])
        #expect(report.dropped.count == NotificationBus.queueLimit)
        #expect(bus.post("com.x.y", payload: "{}", sender: "com.c", depth: tooDeep), "room again after the report")
    }
}
