/// Where plugin code runs.
public enum PluginIsolation: Sendable, Equatable {
    /// In the host's process: fastest; a crash or a hang in plugin code is the host's.
    case inProcess
    /// Each library in a worker process of its own, started from the `plugboard-worker`
    /// executable at `worker`: a crash, an exit or a hang ends only that library's part.
    case workers(worker: String)
}
