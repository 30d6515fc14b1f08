/// Takes part in termination (broadcast in reverse priority order: last in, first out).
public protocol TerminationPlugin: ApplicationPlugin {
    /// The application is about to terminate: save state now. Default: nothing.
    func willTerminate()
}

extension TerminationPlugin {
    /// The default: see the requirement.
    public func willTerminate() {}
}
