/// A library's own function, which a worker announces (`stage`) before it calls it: a host that
/// loses the worker then can name where it was (`… crashed with SIGSEGV in init`). On the wire,
/// its C name as a string (since 1.1).
public enum LibraryFunction: String, Sendable, CaseIterable {
    /// The library's `plugboard_entry`.
    case entry = "plugboard_entry"
    /// `pb_entry_t.init`.
    case `init`
    /// `pb_entry_t.register_plugins`.
    case registerPlugins = "register_plugins"
    /// `pb_entry_t.deinit`.
    case `deinit`

    /// The C name, as fault and timeout messages say it.
    public var callbackName: StaticString {
        switch self {
        case .entry: "plugboard_entry"
        case .`init`: "init"
        case .registerPlugins: "register_plugins"
        case .`deinit`: "deinit"
        }
    }
}
