/// Takes part in protected-data changes (broadcast, priority order).
public protocol ProtectedDataPlugin: ApplicationPlugin {
    /// Protected files are about to become unreadable. Default: nothing.
    func protectedDataWillBecomeUnavailable()
    /// Protected files are readable again. Default: nothing.
    func protectedDataDidBecomeAvailable()
}

extension ProtectedDataPlugin {
    /// The default: see the requirement.
    public func protectedDataWillBecomeUnavailable() {}
    /// The default: see the requirement.
    public func protectedDataDidBecomeAvailable() {}
}
