import Foundation
import Plugboard
import Testing

/// The host's version is written once, in `HostIdentity`: the CLI's `--version` prints it and
/// CMake's `project(… VERSION …)` (the installed package's version) must say the same.
@Suite struct VersionTests {
    @Test func cmakeAndTheCLIShowTheHostsVersion() throws {
        let cmake = try String(contentsOfFile: TestPaths.packageRoot.appendingPathComponent("CMakeLists.txt").path, encoding: .utf8)
        let project = cmake.split(separator: "\n").first { $0.hasPrefix("project(Plugboard VERSION ") }
        #expect(project?.split(separator: " ").dropFirst(2).first.map(String.init) == HostIdentity.version)
        #expect(try CLI.run(["--version"]).output.trimmingCharacters(in: .whitespacesAndNewlines) == HostIdentity.version)
    }
}
