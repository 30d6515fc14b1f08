import Foundation

/// The Swift plugin libraries the tests load, each copied by the test that loads it. The example is a
/// `.dynamic` product of this package, next to the test binary (like `TestPaths.plugboard`): built by
/// `swift build --build-tests`. The fixtures are products of the fixture package Fixtures/SwiftPlugins
/// (``SwiftPluginFixtures``), built by the first test that needs one.
enum SwiftPackageLibraries {
    /// plugins/swift-example.
    static let example = "libSwiftExamplePlugin.so"
    /// Tests/PlugboardTests/Fixtures/SwiftPlugins/swift-sdk-probe.
    static let probe = "libSwiftSDKProbePlugin.so"
    /// Tests/PlugboardTests/Fixtures/SwiftPlugins/swift-functions.
    static let functions = "libSwiftFunctionsPlugin.so"
    /// Tests/PlugboardTests/Fixtures/SwiftPlugins/swift-invoke.
    static let invoke = "libSwiftInvokePlugin.so"
    /// Tests/PlugboardTests/Fixtures/SwiftPlugins/swift-entries.
    static let entries = "libSwiftEntriesPlugin.so"

    /// The libraries of the fixture package.
    private static let fixtures: Set = [probe, functions, invoke, entries]

    /// The path of the built library `name`: a fixture in the fixture package's products, else found
    /// from the test binary's folder upwards.
    static func built(_ name: String) throws -> String {
        if fixtures.contains(name) {
            return try SwiftPluginFixtures.products() + "/" + name
        }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw TestFailure("\(name) was not built; run swift build --build-tests")
    }

    /// Copies the built library `name` into `folder`; the copy's path.
    @discardableResult
    static func copy(_ name: String, into folder: String) throws -> String {
        let copy = folder + "/" + name
        try FileManager.default.copyItem(atPath: try built(name), toPath: copy)
        return copy
    }
}
