/// Takes part in protected-data changes (broadcast, priority order).
public protocol ProtectedDataPlugin: ApplicationPlugin {
    /// Protected files are about to become unreadable. Default: nothing.
    func protectedDataWillBecomeUnavailable()
    /// Protected files are readable again. Default: nothing.
    func protectedDataDidBecomeAvailable()
}

extension ProtectedDataPlugin {
    public func protectedDataWillBecomeUnavailable() {}
    public func protectedDataDidBecomeAvailable() {}
}
