import Testing
@testable import Plugboard

/// Where `run` looks for plugins: the flags, else `PLUGBOARD_PLUGIN_PATH`, else the default folders.
@Suite struct PluginSearchPathTests {
    @Test func theVariableNamesItsFoldersAndOneOfOnlyColonsNamesNone() {
        let environment = ["HOME": "/home/ann"]
        let listed = PluginSearchPath.resolve(flags: [], environment: environment.merging(["PLUGBOARD_PLUGIN_PATH": "/a::/b:"]) { $1 })
        #expect(listed.directories.map(\.path) == ["/a", "/b"] && listed.directories.allSatisfy(\.isExplicit))
        let defaults = PluginSearchPath.defaultDirectories(environment: environment)
        for empty in ["", ":", "::"] {
            let resolved = PluginSearchPath.resolve(flags: [], environment: environment.merging(["PLUGBOARD_PLUGIN_PATH": empty]) { $1 })
            #expect(resolved.directories.map(\.path) == defaults && !resolved.directories.contains(where: \.isExplicit), "\(empty)")
        }
        #expect(PluginSearchPath.resolve(flags: ["/c"], environment: ["PLUGBOARD_PLUGIN_PATH": "/a"]).directories.map(\.path) == ["/c"])
    }
}
