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
    private(set) var terminated = false

    /// Notes an event of the launch, app-state or termination concern as it is dispatched.
    /// Always inlined: for an event of another concern, known where it is dispatched, it is nothing.
    @inline(__always)
    mutating func note(_ event: LifecycleEvent) {
        switch event {
        case .willFinishLaunching(let options): Self.keep(options, in: &willFinishLaunching)
        case .didFinishLaunching(let options): Self.keep(options, in: &didFinishLaunching)
        case .didBecomeActive, .willResignActive, .didEnterBackground, .willEnterForeground: state = event
        case .willTerminate: terminated = true
        default: break
        }
    }

    /// Keeps `options` in `kept`, unless `kept` holds them already, bit for bit (the same `String` or
    /// bytes: a launch event dispatched again with its options), which then costs no copy. Comparing
    /// the bits, not the texts: comparing texts cost more than the copy it would save.
    ///
    /// Word by word, as the value was just written: one wider load of it (a vectorized `memcmp`) waits
    /// until both of its stores reach the cache, as a load across two pending stores cannot take its
    /// bytes from them.
    private static func keep(_ options: EventText, in kept: inout EventText?) {
        let same = withUnsafeBytes(of: options) { new in
            withUnsafeBytes(of: &kept) { old in
                guard old.count >= new.count else { return false }
                var offset = 0
                while offset + 8 <= new.count {
                    guard old.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            == new.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
                    offset += 8
                }
                return new[offset...].elementsEqual(old[offset..<new.count])
            }
        }
        if !same { kept = options }
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
