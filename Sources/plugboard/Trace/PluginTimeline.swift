import Plugboard

/// One plugin's part in a run's launch, read from its trace: its library's load
/// and its will-finish-launching and did-finish-launching calls. What `blame`
/// sorts and the launch SVG draws.
struct PluginTimeline {
    /// A span of the trace, in microseconds since the run began.
    struct Span {
        /// Start.
        let start: Double
        /// Duration.
        let duration: Double
    }

    /// The plugin's id.
    let plugin: String
    /// Its library's path; nil for a plugin built into the host.
    var library: String?
    /// Its library's load.
    var load: Span?
    /// Its launch calls, in call order.
    var launchCalls: [Span] = []

    /// Microseconds its library took to load.
    var loadMicroseconds: Double { load?.duration ?? 0 }
    /// Microseconds its launch calls took.
    var launchMicroseconds: Double { launchCalls.reduce(0) { $0 + $1.duration } }
    /// Load and launch.
    var totalMicroseconds: Double { loadMicroseconds + launchMicroseconds }

    /// The launch events, by trace name.
    static let launchEvents: Set<String> = [LifecycleEvent.Kind.willFinishLaunching.name, LifecycleEvent.Kind.didFinishLaunching.name]

    /// Every plugin of `trace` (loaded from a library or called at launch), in the order the trace first names it.
    static func all(in trace: ChromeTrace) -> [PluginTimeline] {
        var timelines: [PluginTimeline] = []
        var index: [String: Int] = [:]
        func update(_ plugin: String, _ change: (inout PluginTimeline) -> Void) {
            if index[plugin] == nil {
                index[plugin] = timelines.count
                timelines.append(PluginTimeline(plugin: plugin))
            }
            if let position = index[plugin] { change(&timelines[position]) }
        }
        for event in trace.traceEvents where event.ph == "X" {
            let span = Span(start: event.ts, duration: max(0, event.dur ?? 0))
            switch TraceCategory(rawValue: event.cat) {
            case .load:
                guard let library = event.args["library"], let plugins = event.args["plugins"] else { continue }
                for plugin in plugins.split(separator: ",") {
                    update(String(plugin)) { $0.library = library; $0.load = span }
                }
            case .call:
                guard let plugin = event.args["plugin"], let name = event.args["event"], launchEvents.contains(name) else { continue }
                update(plugin) { $0.launchCalls.append(span) }
            default:
                continue
            }
        }
        return timelines
    }
}

