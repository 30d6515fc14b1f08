import Foundation
import Testing

/// The real `cargo`, building the repository's Rust crates offline (they have no dependencies
/// to download), each into a target directory the test owns.
enum Cargo {
    /// `cargo` on PATH, else in `$CARGO_HOME/bin` or `~/.cargo/bin` (where rustup installs it).
    /// Missing, it is a test failure that says so: the Rust tests never skip silently.
    static func executable() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let rustup = [environment["CARGO_HOME"].map { $0 + "/bin" }, environment["HOME"].map { $0 + "/.cargo/bin" }]
        for directory in path + rustup.compactMap({ $0 }) where FileManager.default.isExecutableFile(atPath: directory + "/cargo") {
            return directory + "/cargo"
        }
        throw TestFailure("cargo was not found on PATH, in $CARGO_HOME/bin or in ~/.cargo/bin: install Rust (rustup) to run the Rust SDK tests")
    }

    /// Runs `cargo arguments…` (offline, with the crates' committed Cargo.lock) with cargo's own
    /// folder first on PATH, so rustup's rustc is found; throws with cargo's output on failure.
    @discardableResult
    static func run(_ arguments: [String], targetDirectory: String) throws -> ProcessResult {
        let cargo = try executable()
        var environment = TestPaths.hermeticEnvironment
        let folder = URL(fileURLWithPath: cargo).deletingLastPathComponent().path
        environment["PATH"] = folder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try PlugboardTests.run(cargo, arguments + ["--offline", "--locked", "--target-dir", targetDirectory],
                                            environment: environment)
        guard result.status == 0 else {
            throw TestFailure("cargo \(arguments.joined(separator: " ")) failed (\(result.status)):\n\(result.errorOutput)")
        }
        return result
    }

    /// Builds the cdylib crate at `crate` (relative to the package root) in release mode under
    /// `directory`, and copies its library into `plugins` as `<name>.so`.
    @discardableResult
    static func buildPlugin(_ crate: String, in directory: TemporaryDirectory, into plugins: String) throws -> String {
        let manifest = TestPaths.packageRoot.appendingPathComponent(crate + "/Cargo.toml").path
        try run(["build", "--release", "--quiet", "--manifest-path", manifest], targetDirectory: directory.file("target"))
        let name = URL(fileURLWithPath: crate).lastPathComponent
        let built = directory.file("target/release/lib" + name.replacingOccurrences(of: "-", with: "_") + ".so")
        let installed = plugins + "/" + name + ".so"
        try FileManager.default.copyItem(atPath: built, toPath: installed)
        return installed
    }
}
