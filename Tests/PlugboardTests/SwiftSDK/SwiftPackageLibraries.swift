import Foundation

/// The Swift plugin libraries SwiftPM builds as `.dynamic` products of this package, next to the
/// test binary (like `TestPaths.plugboard`): built once by `swift build --build-tests`, copied by
/// each test that loads one.
enum SwiftPackageLibraries {
    /// plugins/swift-example.
    static let example = "libSwiftExamplePlugin.so"
    /// Tests/PlugboardTests/Fixtures/swift-sdk-probe.
    static let probe = "libSwiftSDKProbePlugin.so"
    /// Tests/PlugboardTests/Fixtures/swift-functions.
    static let functions = "libSwiftFunctionsPlugin.so"
    /// Tests/PlugboardTests/Fixtures/swift-invoke.
    static let invoke = "libSwiftInvokePlugin.so"

    /// The path of the built library `name`, found from the test binary's folder upwards.
    static func built(_ name: String) throws -> String {
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
