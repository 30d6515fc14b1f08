/// The rule that a plugin id two libraries register belongs to neither, applied to the
/// reports of libraries that were each scanned on their own (a cached listing): the same
/// refusal, naming the first two files, that ``PluginHost/loadPlugins(from:trust:)`` gives
/// when it loads them into one host.
enum ContestedPluginIDs {
    /// `libraries` with each contested plugin moved to its library's refusals; a library
    /// left with no plugin fails.
    static func withdraw(from libraries: [ScannedLibrary]) -> [ScannedLibrary] {
        var claimants: [PluginID: [String]] = [:]
        for library in libraries where library.report.status == .loaded {
            for plugin in library.report.plugins { claimants[plugin.descriptor.id, default: []].append(library.report.path) }
        }
        var refusals: [PluginID: LoadFailure] = [:]
        for (id, paths) in claimants where paths.count > 1 {
            refusals[id] = .contested(id, first: paths[0], second: paths[1])
        }
        guard !refusals.isEmpty else { return libraries }
        return libraries.map { library in
            var library = library
            library.report.withdraw { refusals[$0] }
            return library
        }
    }
}
