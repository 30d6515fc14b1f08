/// Takes part in launching. Policy: every launch plugin is called, then the
/// answers are ANDed; a `false` vetoes the launch and is reported by id.
public protocol LaunchPlugin: ApplicationPlugin {
    /// The application is about to finish launching; `options` is JSON object text.
    /// Return false to veto. Default: true.
    func willFinishLaunching(options: String) -> Bool
    /// The application finished launching; same meaning as ``willFinishLaunching(options:)``.
    func didFinishLaunching(options: String) -> Bool
}

extension LaunchPlugin {
    /// The default: see the requirement.
    public func willFinishLaunching(options: String) -> Bool { true }
    /// The default: see the requirement.
    public func didFinishLaunching(options: String) -> Bool { true }
}
