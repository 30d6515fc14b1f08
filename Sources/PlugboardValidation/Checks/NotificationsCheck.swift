import Plugboard

/// The `notifications` check: what plugins observe and post on the host's bus during a launch.
enum NotificationsCheck {
    /// The size of the long payload's text.
    static let longTextSize = 60 * 1024
    /// How deep the nested payload's objects are.
    static let nestingDepth = 100

    /// The payloads delivered to each observed name, by what they test: all within `PB_NOTIFICATION_PAYLOAD_MAX`.
    static let edgePayloads: [(String, String)] = [
        ("an empty object", "{}"),
        ("a \(longTextSize.bytesText) object", #"{"text":""# + String(repeating: "x", count: longTextSize) + #""}"#),
        ("an object nested \(nestingDepth) deep",
         String(repeating: #"{"a":"#, count: nestingDepth - 1) + "{}" + String(repeating: "}", count: nestingDepth - 1)),
        ("non-ASCII and escaped strings", #"{"text":"héllo wörld ✓ 🧩","escaped":"\"quoted\" \\ \/ \b\f\n\r\t \u0000 \ud83e\udde9"}"#),
    ]

    /// The check.
    static let check = ValidationCheck(
        name: "notifications",
        description: "Through will- and did-finish-launching, every post a plugin makes is valid (the bus refuses "
            + "none); each name a plugin then observes gets an empty, a \(longTextSize.bytesText), a \(nestingDepth)-deep "
            + "and a non-ASCII payload, and its observer returns within the call timeout.") { subject in
        subject.withLoaded { loaded in
            let host = loaded.host
            let ids = Set(loaded.report.plugins.map(\.descriptor.id.rawValue))
            let launch = [host.willFinishLaunching(), host.didFinishLaunching()]
            if let failure = launch.flatMap(\.failures).first { return (loaded.failureStatus, failure.message) }
            if let refused = refusedPost(loaded) { return (.fail, refused) }
            let posted = launch.map(\.notifications).flatMap { $0.deliveries.map(\.sender) + $0.unobserved.map(\.sender) }
                .filter(ids.contains)
            let observed = loaded.harness.observedNames
            guard !observed.isEmpty || !posted.isEmpty else { return (.skipped, "no plugin observes or posts during launch") }
            for name in observed {
                for (what, payload) in edgePayloads {
                    do throws(NotificationRefusal) {
                        try host.post(name, payload: payload)
                    } catch {
                        return (.fail, "the validator's own post was refused: \(error)")
                    }
                    if let failure = host.deliverNotifications().deliveries.compactMap(\.failure).first {
                        return (loaded.failureStatus, "\(name) with \(what): \(failure)")
                    }
                }
            }
            // Observers may post too, while the edge payloads are delivered.
            if let refused = refusedPost(loaded) { return (.fail, refused) }
            return (.pass, "\(observed.count) observed name(s) survived \(edgePayloads.count) edge payloads each; "
                + "no post refused")
        }
    }

    /// The first post the bus refused so far (a ``BusRefusal``, whatever note its log line
    /// carries), with who made it and the host's reason.
    private static func refusedPost(_ loaded: ValidationSubject.Loaded) -> String? {
        loaded.harness.busRefusals.first { $0.call == .post }.map { "\($0.plugin ?? $0.library): \($0.reason); refused" }
    }
}
