import Foundation
import Testing

/// Whether cmake, ninja and pkg-config are on the PATH.
private let buildToolsPresent = ["cmake", "ninja", "pkg-config"].allSatisfy { tool in
    (try? run("/usr/bin/env", ["sh", "-c", "command -v \(tool)"]).status) == 0
}

/// The CMake build installs a package that third-party plugins can build against,
/// with `find_package(Plugboard)` and with pkg-config, and the results load; with
/// `PLUGBOARD_HOST_BINARIES` it installs the host too, which runs the installed example plugins
/// in both isolation modes with its worker found in libexec/, and its bash completion loads.
@Suite(.enabled(if: buildToolsPresent, "needs cmake, ninja and pkg-config (.ci/run installs them)"))
struct CMakePackageTests {
    private static let plugin = """
        #include <plugboard.h>
        static void bye(void *ctx) { (void)ctx; }
        static const pb_termination_t termination = {sizeof(pb_termination_t), bye};
        static bool add(const pb_registrar_t *r) {
            pb_plugin_t p = {0};
            p.struct_size = sizeof p;
            p.id = "org.thirdparty.hello";
            p.termination = &termination;
            return r->add_plugin(r, &p) == PB_OK;
        }
        static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, 0, 0, add};
        PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
        """

    private func check(_ result: ProcessResult, _ step: String) throws {
        guard result.status == 0 else { throw TestFailure("\(step) failed:\n\(result.output)\(result.errorOutput)") }
    }

    @Test func aThirdPartyPluginBuildsWithFindPackageAndPkgConfig() throws {
        let work = try TemporaryDirectory("plugboard-cmake")
        defer { work.remove() }
        let root = TestPaths.packageRoot.path
        let build = work.file("build"), prefix = work.file("prefix")
        let binaries = URL(fileURLWithPath: TestPaths.plugboard).deletingLastPathComponent().path
        try check(run("/usr/bin/env", ["cmake", "-S", root, "-B", build, "-G", "Ninja", "-DPLUGBOARD_HOST_BINARIES=\(binaries)"]),
                  "configure")
        try check(run("/usr/bin/env", ["cmake", "--build", build]), "build")
        try check(run("/usr/bin/env", ["cmake", "--install", build, "--prefix", prefix]), "install")

        try FileManager.default.createDirectory(atPath: work.file("oot"), withIntermediateDirectories: true)
        try work.write("oot/hello.c", Self.plugin)
        try work.write("oot/CMakeLists.txt", """
            cmake_minimum_required(VERSION 3.25)
            project(hello LANGUAGES C)
            find_package(Plugboard 0.1 REQUIRED)
            add_library(hello MODULE hello.c)
            set_target_properties(hello PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden)
            target_link_libraries(hello PRIVATE plugboard::abi)
            target_compile_options(hello PRIVATE -Wall -Wextra -pedantic -Werror)
            """)
        try check(run("/usr/bin/env", ["cmake", "-S", work.file("oot"), "-B", work.file("oot/build"), "-G", "Ninja",
                                       "-DCMAKE_PREFIX_PATH=\(prefix)"]), "find_package configure")
        try check(run("/usr/bin/env", ["cmake", "--build", work.file("oot/build")]), "find_package build")

        var pkgConfig = ProcessInfo.processInfo.environment
        pkgConfig["PKG_CONFIG_PATH"] = prefix + "/share/pkgconfig"
        let cflags = try run("/usr/bin/env", ["pkg-config", "--cflags", "plugboard"], environment: pkgConfig)
        try check(cflags, "pkg-config")
        try FileManager.default.createDirectory(atPath: work.file("pc"), withIntermediateDirectories: true)
        try check(run("/usr/bin/env", ["cc", "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-shared", "-fPIC",
                                       "-fvisibility=hidden"] + cflags.output.split(whereSeparator: \.isWhitespace).map(String.init)
                                       + ["-o", work.file("pc/hello.so"), work.file("oot/hello.c")]), "pkg-config build")

        // The installed host, with nothing of the build or the tests in its environment.
        let plugboard = prefix + "/bin/plugboard"
        let environment = ["PATH": "/usr/bin:/bin", "HOME": work.path, "XDG_DATA_HOME": work.file("data")]
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/libexec/plugboard/plugboard-worker"))
        for library in [work.file("oot/build/hello.so"), work.file("pc/hello.so")] {
            let inspect = try run(plugboard, ["inspect", library], environment: environment)
            #expect(inspect.status == 0, "\(inspect.output)")
            #expect(inspect.output.contains("org.thirdparty.hello"))
        }
        let installed = try run(plugboard, ["list", "--plugin-dir", prefix + "/lib/plugboard/plugins"], environment: environment)
        #expect(installed.status == 0, "\(installed.output)")
        // CMake builds the folders of plugins/ that hold C or C++ sources (not the Rust crates).
        let plugins = TestPaths.packageRoot.path + "/plugins"
        let examples = try FileManager.default.contentsOfDirectory(atPath: plugins).filter { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: plugins + "/" + folder)) ?? [])
                .contains { $0.hasSuffix(".c") || $0.hasSuffix(".cpp") }
        }.count
        #expect(examples >= 4)
        #expect(installed.output.contains("\(examples) file(s): \(examples) loaded"), "\(installed.output)")
        for isolation in ["process", "none"] {
            let ran = try run(plugboard, ["run", "--isolation", isolation, "--plugin-dir", prefix + "/lib/plugboard/plugins"],
                              environment: environment)
            #expect(ran.status == 0 && ran.output.contains("\(examples) file(s): \(examples) loaded"),
                    "installed run, --isolation \(isolation):\n\(ran.output)\(ran.errorOutput)")
        }
        let completion = try run("/bin/bash", ["-c", "source \(prefix)/share/bash-completion/completions/plugboard && complete -p plugboard"],
                                 environment: environment)
        #expect(completion.status == 0 && completion.output.contains("plugboard"), "\(completion.output)\(completion.errorOutput)")
        for file in ["/share/zsh/site-functions/_plugboard", "/share/fish/vendor_completions.d/plugboard.fish"] {
            #expect(FileManager.default.fileExists(atPath: prefix + file), "\(file) installed")
        }
    }
}
