/// Takes part in launching. Policy: every launch plugin is called, then the
/// answers are ANDed; a `false` vetoes the launch and is reported by id.
///
/// Implement one of the two forms of each event: the host calls the borrowed one, whose default
/// copies the text into a `String` for the other (see ``ApplicationPlugin``, "Text").
public protocol LaunchPlugin: ApplicationPlugin {
    /// The application is about to finish launching; `options` is JSON object text, borrowed for
    /// the call. Return false to veto. Default: the `String` form.
    func willFinishLaunching(options: TextSpan) -> Bool
    /// The application finished launching; same meaning as ``willFinishLaunching(options:)-(TextSpan)``.
    func didFinishLaunching(options: TextSpan) -> Bool
    /// The application is about to finish launching; `options` is JSON object text.
    /// Return false to veto. Default: true.
    func willFinishLaunching(options: String) -> Bool
    /// The application finished launching; same meaning as ``willFinishLaunching(options:)-(String)``.
    func didFinishLaunching(options: String) -> Bool
}

extension LaunchPlugin {
    /// The default: the `String` form, with the text copied.
    public func willFinishLaunching(options: TextSpan) -> Bool { willFinishLaunching(options: String(copying: options)) }
    /// The default: the `String` form, with the text copied.
    public func didFinishLaunching(options: TextSpan) -> Bool { didFinishLaunching(options: String(copying: options)) }
    /// The default: see the requirement.
    public func willFinishLaunching(options: String) -> Bool { true }
    /// The default: see the requirement.
    public func didFinishLaunching(options: String) -> Bool { true }
}
