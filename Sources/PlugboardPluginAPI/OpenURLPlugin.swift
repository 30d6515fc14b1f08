/// Takes part in opening URLs. Policy: asked in priority order; the first
/// `true` handles the URL and later plugins are not asked.
///
/// Implement one of the two forms: the host calls the borrowed one, whose default copies the text
/// into `String`s for the other (see ``ApplicationPlugin``, "Text").
public protocol OpenURLPlugin: ApplicationPlugin {
    /// Return true if this plugin handled `url`; `options` is JSON object text. Both are borrowed
    /// for the call. Default: the `String` form.
    func open(url: TextSpan, options: TextSpan) -> Bool
    /// Return true if this plugin handled `url`; `options` is JSON object text. Default: false.
    func open(url: String, options: String) -> Bool
}

extension OpenURLPlugin {
    /// The default: the `String` form, with the text copied.
    public func open(url: TextSpan, options: TextSpan) -> Bool {
        open(url: String(copying: url), options: String(copying: options))
    }
    /// The default: see the requirement.
    public func open(url: String, options: String) -> Bool { false }
}
