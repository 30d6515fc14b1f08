/// Where the application is in its life, as the events dispatched so far tell: what a library that
/// joins a running host is told to catch up (``catchUp``).
struct ApplicationPhase {
    /// The options of the will-finish-launching dispatched; nil before it.
    private var willFinishLaunching: EventText?
    /// The options of the did-finish-launching dispatched; nil before launch.
    private var didFinishLaunching: EventText?
    /// The last app-state event (did-become-active, will-resign-active, did-enter-background,
    /// will-enter-foreground): the state the application is in.
    private var state: LifecycleEvent?
    /// Whether will-terminate was dispatched.
    private var terminated = false

    /// Notes an event of the launch, app-state or termination concern as it is dispatched.
    mutating func note(_ event: LifecycleEvent) {
        switch event {
        case .willFinishLaunching(let options): willFinishLaunching = options
        case .didFinishLaunching(let options): didFinishLaunching = options
        case .didBecomeActive, .willResignActive, .didEnterBackground, .willEnterForeground: state = event
        case .willTerminate: terminated = true
        default: break
        }
    }

    /// Whether the application has launched and not terminated: a joining library is told so.
    var isRunning: Bool { didFinishLaunching != nil && !terminated }

    /// The events that bring a plugin joining now to where the application is: will-finish-launching
    /// and did-finish-launching with the options the application gave, then the event of the state it
    /// is in (none after launch, before any app-state event). None before launch or after termination.
    var catchUp: [LifecycleEvent] {
        guard isRunning, let didFinishLaunching else { return [] }
        let willFinish = LifecycleEvent.willFinishLaunching(options: willFinishLaunching ?? "{}")
        return [willFinish, .didFinishLaunching(options: didFinishLaunching)] + (state.map { [$0] } ?? [])
    }
}
