/// Takes part in opening URLs. Policy: asked in priority order; the first
/// `true` handles the URL and later plugins are not asked.
public protocol OpenURLPlugin: ApplicationPlugin {
    /// Return true if this plugin handled `url`; `options` is JSON object text. Default: false.
    func open(url: String, options: String) -> Bool
}

extension OpenURLPlugin {
    /// The default: see the requirement.
    public func open(url: String, options: String) -> Bool { false }
}
