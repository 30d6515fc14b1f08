/// A run as Chrome trace-event JSON (the format Perfetto and `chrome://tracing` open):
/// what `run --trace-file` writes and `blame` reads back.
struct ChromeTrace: Codable {
    /// Spans, instants and lane names, in the order they were recorded.
    var traceEvents: [ChromeTraceEvent]
    /// How viewers show times (the `ts` and `dur` of the events are microseconds).
    var displayTimeUnit = "ms"
}

/// One trace event: a complete span (`ph` "X"), an instant ("i") or a lane name ("M").
struct ChromeTraceEvent: Codable {
    /// What happened: "load /path/libx.so", "open-url", "com.example.x will-finish-launching", "thread_name".
    let name: String
    /// The ``TraceCategory`` raw value; empty for metadata.
    let cat: String
    /// The phase: "X" (span), "i" (instant) or "M" (metadata).
    let ph: String
    /// Start, in microseconds since the run began.
    let ts: Double
    /// Duration in microseconds, for a span.
    var dur: Double?
    /// Always 1: one run is one process.
    var pid = 1
    /// The lane: one per library (loads), per plugin (calls, worker failures) and one for events.
    let tid: Int
    /// An instant's scope ("t": its lane).
    var s: String?
    /// Details: `library`, `plugins` (comma-separated ids), `plugin`, `event`, `answer`, `detail`,
    /// `message`; for metadata, `name`.
    var args: [String: String]
}

/// What a trace event is about.
enum TraceCategory: String {
    /// Loading one library (or finding libraries and starting their workers).
    case load
    /// One lifecycle event, from its first call to its reduced answer.
    case event
    /// One plugin's call within an event.
    case call
    /// A worker that failed: crashed, exited, broke its channel or timed out.
    case worker
    /// One notification delivered to one observer, or an instant for one unobserved or dropped.
    case notification
}
