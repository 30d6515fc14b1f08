/// Takes part in memory warnings (broadcast, priority order).
public protocol MemoryWarningPlugin: ApplicationPlugin {
    /// The system is short of memory: drop what can be rebuilt. Default: nothing.
    func didReceiveMemoryWarning()
}

extension MemoryWarningPlugin {
    /// The default: see the requirement.
    public func didReceiveMemoryWarning() {}
}
