import PlugboardWorkerProtocol

/// Unloading a library in its worker, which stays: `init` after `deinit` in one
/// process, as a library loaded by hosts in turn meets it (the validator's checks).
extension PluginHost {
    /// Withdraws the plugins of the library at `path` and has its worker run the library's
    /// `deinit` and stay; after `deinit` returned, the worker waits `linger` (a thread the
    /// library did not stop shows up calling the host), then reports how the library used
    /// the host services. ``loadAgainInWorker(_:)`` loads it again in the same worker.
    /// Fails with how the worker ended (a crash in `deinit`, say; it is then stopped).
    func unloadInWorker(_ path: String, linger: Duration) -> Result<ServiceCensus, WorkerEnding> {
        guard let connection = loaded.workers(loadedFrom: path).last, connection.ending == nil else {
            return .failure(.lost("no worker of this host holds the library"))
        }
        if let refusal = connection.refusal(needing: WorkerMessage.Kind.unload.introducedInMinor, for: "unload") {
            return .failure(connection.abandon(refusal))
        }
        registry.removeAll(from: .library(path: path))
        let milliseconds = UInt32(clamping: linger.nanoseconds / 1_000_000)
        let answer = connection.request(.unload(lingerMilliseconds: milliseconds), timeout: callTimeout.map { $0 + linger })
        // Its observers end with it (those its deinit made too: their frames came before the answer).
        notifications.removeObservers(of: ObjectIdentifier(connection))
        switch answer {
        case .success(.unloaded(let census)): return .success(census)
        case .success(let other): return .failure(connection.abandon("it answered the unload with \(other.kind)"))
        case .failure(let ending): return .failure(ending)
        }
    }

    /// Loads the library at `path` again in the worker that unloaded it (``unloadInWorker(_:linger:)``),
    /// so its `init` and `register_plugins` run a second time in the same process, and registers its plugins.
    func loadAgainInWorker(_ path: String) -> LoadReport {
        guard let connection = loaded.workers(loadedFrom: path).last, connection.ending == nil else {
            return .failed(path, LoadFailure(.worker, "no worker of this host holds the library"))
        }
        return load(path, in: connection)
    }
}
