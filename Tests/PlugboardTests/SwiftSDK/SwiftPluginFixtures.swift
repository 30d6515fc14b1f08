import Foundation

/// The fixture package Fixtures/SwiftPlugins: the tests' Swift plugins, built against this checkout's
/// PlugboardSDK in a package of their own so that they are not products of Plugboard. `swift build`
/// builds it into a scratch folder under the package's `.build`, once per test process: the first
/// test that needs a library runs the build and every other waits for it (a static `let` is
/// initialised once); with the scratch folder kept, a later run's build only checks it is up to date.
enum SwiftPluginFixtures {
    /// The fixture package.
    static let package = TestPaths.fixtures + "/SwiftPlugins"
    /// Its scratch folder.
    static let scratch = TestPaths.packageRoot.appendingPathComponent(".build/swift-plugin-fixtures").path

    /// The folder of the built libraries, or why the build failed.
    private static let build: Result<String, TestFailure> = {
        let arguments = ["swift", "build", "--package-path", package, "--scratch-path", scratch]
        let result: ProcessResult
        do {
            // SwiftPM leaves folders in its temporary folder: this one, removed after the build.
            let temporary = try TemporaryDirectory("plugboard-swiftpm")
            defer { temporary.remove() }
            var environment = TestPaths.hermeticEnvironment
            environment["TMPDIR"] = temporary.path
            result = try run("/usr/bin/env", arguments, environment: environment)
        } catch {
            return .failure(TestFailure("\(arguments.joined(separator: " ")) did not start: \(error)"))
        }
        guard result.status == 0 else {
            return .failure(TestFailure("\(arguments.joined(separator: " ")) failed (\(result.status)):\n\(result.output)\(result.errorOutput)"))
        }
        return .success(scratch + "/debug")
    }()

    /// The folder of the built libraries, built on first use.
    static func products() throws -> String {
        try build.get()
    }
}
