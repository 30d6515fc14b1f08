import Foundation
import Glibc
import Plugboard
import Testing

/// Whether the tools of the install are on the PATH: cmake, ninja, pkg-config, cpack's dpkg-deb and
/// dpkg-shlibdeps, unshare (to hide the toolchain) and man.
private let installToolsPresent = ["cmake", "ninja", "pkg-config", "dpkg-deb", "dpkg-shlibdeps", "unshare", "man"].allSatisfy { tool in
    (try? run("/usr/bin/env", ["sh", "-c", "command -v \(tool)"]).status) == 0
}

/// One command installs everything: `cmake --build` and `cmake --install` put the host (built by SwiftPM
/// with the Swift runtime linked statically), its man pages and completions, the headers, the CMake
/// package, plugboard.pc and the example plugins into a temporary prefix; `cpack` makes the two Debian
/// packages. The installed host runs with nothing of the build or the toolchain in reach.
@Suite(.enabled(if: installToolsPresent,
                "needs cmake, ninja, pkg-config, dpkg-dev, util-linux's unshare and man-db (.ci/run installs them)"))
struct InstallTests {
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

    /// The install under test: its work folder, build folder and prefix.
    private struct Install {
        let work: TemporaryDirectory
        /// The folders of the Swift toolchain's runtime libraries, hidden from the installed host.
        let toolchainLibraries: [String]
        var build: String { work.file("build") }
        var prefix: String { work.file("prefix") }
        var plugboard: String { prefix + "/bin/plugboard" }
        var plugins: String { prefix + "/lib/plugboard/plugins" }
        /// The tests' environment with the temporary folder in `work` (SwiftPM leaves folders in it).
        var buildEnvironment: [String: String] {
            TestPaths.hermeticEnvironment.merging(["TMPDIR": work.file("tmp")]) { $1 }
        }
        /// An environment with nothing of the build, the tests or the toolchain: system folders only.
        var environment: [String: String] { ["PATH": "/usr/bin:/bin", "HOME": work.path, "XDG_DATA_HOME": work.file("data")] }
    }

    private func check(_ result: ProcessResult, _ step: String) throws {
        guard result.status == 0 else { throw TestFailure("\(step) failed:\n\(result.output)\(result.errorOutput)") }
    }

    /// One test: the build is minutes of SwiftPM and CMake, done once for every check.
    @Test func oneCommandInstallsEverythingAndTheInstallRunsWithoutTheToolchain() throws {
        let toolchainLibraries = try toolchainLibraryFolders()
        let install = Install(work: try TemporaryDirectory("plugboard-install"), toolchainLibraries: toolchainLibraries)
        defer { install.work.remove() }
        let root = TestPaths.packageRoot.path
        try FileManager.default.createDirectory(atPath: install.work.file("tmp"), withIntermediateDirectories: true)
        try check(run("/usr/bin/env", ["cmake", "-S", root, "-B", install.build, "-G", "Ninja"], environment: install.buildEnvironment),
                  "configure")
        try check(run("/usr/bin/env", ["cmake", "--build", install.build], environment: install.buildEnvironment), "build")
        try check(run("/usr/bin/env", ["cmake", "--install", install.build, "--prefix", install.prefix]), "install")

        try theHostRunsWithoutTheToolchain(install)
        try swiftPluginsLoadInTheInstalledWorker(install)
        try thirdPartyPluginsBuildAgainstTheInstall(install)
        try manPagesAndCompletions(install)
        try debianPackages(install)
    }

    /// The folders of the Swift toolchain's runtime libraries (`swift -print-target-info`).
    private func toolchainLibraryFolders() throws -> [String] {
        let info = try run("/usr/bin/env", ["swift", "-print-target-info"])
        try check(info, "swift -print-target-info")
        let json = try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any]
        let folders = ((json?["paths"] as? [String: Any])?["runtimeLibraryPaths"] as? [String]) ?? []
        guard !folders.isEmpty else { throw TestFailure("swift -print-target-info names no runtime library folder:\n\(info.output)") }
        return folders
    }

    /// Runs `program` in a mount namespace where each of `hidden` is an empty tmpfs, after checking that
    /// the Swift runtime is gone from it (root needs no user namespace; anyone else maps to root in one).
    private func runHiding(_ hidden: [String], _ program: String, _ arguments: [String],
                     environment: [String: String]) throws -> ProcessResult {
        let mounts = hidden.map { "mount -t tmpfs plugboard-test '\($0)' && test ! -e '\($0)/libswiftCore.so'" }
        let namespaces = geteuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        return try run("/usr/bin/unshare", namespaces + ["--propagation", "private", "/bin/sh", "-c",
                                                         mounts.joined(separator: " && ") + " && exec \"$0\" \"$@\"", program]
                                                         + arguments, environment: environment)
    }

    /// The installed programs need no Swift library, export no symbol (a plugin's Swift runtime never binds
    /// to theirs), the worker is not position-independent, and they run the installed example plugins in both isolation modes with the toolchain's
    /// runtime libraries out of reach and the worker found in libexec/.
    private func theHostRunsWithoutTheToolchain(_ install: Install) throws {
        let worker = install.prefix + "/libexec/plugboard/plugboard-worker"
        #expect(FileManager.default.isExecutableFile(atPath: worker))
        for program in [install.plugboard, worker] {
            let needed = try run("/usr/bin/env", ["readelf", "--dynamic", "--wide", program])
            try check(needed, "readelf \(program)")
            let libraries = needed.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            #expect(libraries.contains { $0.contains("libffi") }, "\(libraries)")
            #expect(!libraries.contains { $0.contains("swift") || $0.contains("Foundation") || $0.contains("dispatch") },
                    "\(program) needs the Swift runtime:\n\(libraries.joined(separator: "\n"))")
            let exported = try run("/usr/bin/env", ["nm", "--dynamic", "--defined-only", program])
            try check(exported, "nm \(program)")
            // The worker exports its `open` alone (Sources/CWorkerOpen), for the libdispatch a plugin may bring.
            let names = exported.output.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
            #expect(names == (program == worker ? ["open"] : []), "\(program) exports symbols:\n\(exported.output.prefix(2000))")
        }
        // The installed worker is linked at a fixed address: no relocations of its own image at each start.
        let header = try run("/usr/bin/env", ["readelf", "--file-header", worker])
        try check(header, "readelf \(worker)")
        #expect(header.output.contains("EXEC (Executable file)"), "\(header.output)")

        let examples = try Self.exampleCount()
        let hidden = install.toolchainLibraries
        for isolation in ["process", "none"] {
            let ran = try runHiding(hidden, install.plugboard,
                              ["run", "--isolation", isolation, "--plugin-dir", install.plugins, "--open-url", "myapp://item/1"],
                              environment: install.environment)
            #expect(ran.status == 0 && ran.output.contains("\(examples) file(s): \(examples) loaded")
                    && ran.output.contains("will-terminate → delivered"),
                    "installed run, --isolation \(isolation), toolchain hidden:\n\(ran.output)\(ran.errorOutput)")
            if isolation == "process" { #expect(ran.output.contains("sandbox: Landlock"), "\(ran.output)") }
        }
        let listed = try runHiding(hidden, install.plugboard, ["list", "--plugin-dir", install.plugins],
                             environment: install.environment)
        #expect(listed.status == 0 && listed.output.contains("\(examples) file(s): \(examples) loaded"), "\(listed.output)")
    }

    /// How many folders of plugins/ CMake builds: those that hold C or C++ sources (not the Rust crates).
    private static func exampleCount() throws -> Int {
        let plugins = TestPaths.packageRoot.path + "/plugins"
        let count = try FileManager.default.contentsOfDirectory(atPath: plugins).filter { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: plugins + "/" + folder)) ?? [])
                .contains { $0.hasSuffix(".c") || $0.hasSuffix(".cpp") }
        }.count
        guard count >= 4 else { throw TestFailure("only \(count) example plugin folders under plugins/") }
        return count
    }

    /// A Swift plugin brings its own runtime into the installed host, whose runtime is linked in and
    /// private. Linked dynamically (from its RUNPATH) it loads in both modes, its saved state round-trips,
    /// and its runtime error is reported as a crash; with the toolchain hidden it cannot load, and the report
    /// names the library it lacks. Linked with `-static-stdlib` it runs with the toolchain hidden.
    private func swiftPluginsLoadInTheInstalledWorker(_ install: Install) throws {
        let folder = install.work.file("swift-plugins")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.probe, into: folder)
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.example, into: folder)
        for isolation in ["process", "none"] {
            let container = install.work.file("container-\(isolation)")
            let arguments = ["run", "--isolation", isolation, "--plugin-dir", folder, "--container", container]
            for expected in ["count 1", "count 2"] {
                let ran = try run(install.plugboard, arguments + ["--open-url", "probe://count"], environment: install.environment)
                #expect(ran.status == 0 && ran.output.contains("2 file(s): 2 loaded") && ran.output.contains(expected),
                        "Swift plugins, --isolation \(isolation):\n\(ran.output)\(ran.errorOutput)")
            }
            guard isolation == "process" else { continue }
            let trapped = try run(install.plugboard, arguments + ["--open-url", "swiftapp://trap", "--open-url", "probe://count"],
                                  environment: install.environment)
            #expect(trapped.status == 5 && trapped.output.contains("com.example.swift-links crashed with SIGILL in open_url")
                    && trapped.output.contains("count 3"), "\(trapped.output)\(trapped.errorOutput)")
        }
        let hidden = try runHiding(install.toolchainLibraries, install.plugboard, ["list", "--plugin-dir", folder],
                             environment: install.environment)
        #expect(hidden.status == 1 && hidden.output.contains("2 failed") && hidden.output.contains("libswift")
                && hidden.output.contains("cannot open shared object file"), "\(hidden.output)\(hidden.errorOutput)")

        let selfContained = install.work.file("swift-static-stdlib")
        // The probe, in release: a plugin without `@Plugin` builds no swift-syntax (minutes in release).
        try check(run("/usr/bin/env", ["swift", "build", "--package-path", SwiftPluginFixtures.package, "--scratch-path",
                                       install.work.file("swift-static-stdlib-build"), "-c", "release",
                                       "-Xswiftc", "-static-stdlib", "--product", "SwiftSDKProbePlugin"],
                      environment: install.buildEnvironment),
                  "swift build -Xswiftc -static-stdlib")
        try FileManager.default.createDirectory(atPath: selfContained, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: install.work.file("swift-static-stdlib-build/release/") + SwiftPackageLibraries.probe,
                                         toPath: selfContained + "/" + SwiftPackageLibraries.probe)
        for isolation in ["process", "none"] {
            let ran = try runHiding(install.toolchainLibraries, install.plugboard,
                                    ["run", "--isolation", isolation, "--plugin-dir", selfContained, "--open-url", "probe://count"],
                                    environment: install.environment)
            #expect(ran.status == 0 && ran.output.contains("open-url probe://count → handled by com.example.swift-sdk-probe"),
                    "self-contained Swift plugin, --isolation \(isolation), toolchain hidden:\n\(ran.output)\(ran.errorOutput)")
        }
    }

    /// Plugins built against the installed headers, through `find_package(Plugboard)` and through pkg-config,
    /// load in the installed host.
    private func thirdPartyPluginsBuildAgainstTheInstall(_ install: Install) throws {
        let work = install.work
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
                                       "-DCMAKE_PREFIX_PATH=\(install.prefix)"]), "find_package configure")
        try check(run("/usr/bin/env", ["cmake", "--build", work.file("oot/build")]), "find_package build")

        var pkgConfig = ProcessInfo.processInfo.environment
        pkgConfig["PKG_CONFIG_PATH"] = install.prefix + "/share/pkgconfig"
        let cflags = try run("/usr/bin/env", ["pkg-config", "--cflags", "plugboard"], environment: pkgConfig)
        try check(cflags, "pkg-config")
        try FileManager.default.createDirectory(atPath: work.file("pc"), withIntermediateDirectories: true)
        try check(run("/usr/bin/env", ["cc", "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-shared", "-fPIC",
                                       "-fvisibility=hidden"] + cflags.output.split(whereSeparator: \.isWhitespace).map(String.init)
                                       + ["-o", work.file("pc/hello.so"), work.file("oot/hello.c")]), "pkg-config build")
        for library in [work.file("oot/build/hello.so"), work.file("pc/hello.so")] {
            let inspect = try run(install.plugboard, ["inspect", library], environment: install.environment)
            #expect(inspect.status == 0 && inspect.output.contains("org.thirdparty.hello"), "\(inspect.output)")
        }
    }

    /// A page per command, named as man(1) finds subcommands (`man plugboard-run`), that renders without a
    /// warning; the completions in the folders each shell reads, the bash one loading in bash.
    private func manPagesAndCompletions(_ install: Install) throws {
        let man1 = install.prefix + "/share/man/man1"
        let pages = try FileManager.default.contentsOfDirectory(atPath: man1).sorted()
        for page in ["plugboard.1", "plugboard-run.1", "plugboard-files-cat.1", "plugboard-state-rm.1", "plugboard-validate.1"] {
            #expect(pages.contains(page), "\(page) among \(pages)")
        }
        var manEnvironment = install.environment
        manEnvironment["MANPAGER"] = "cat"
        manEnvironment["MANWIDTH"] = "80"
        for page in pages {
            let rendered = try run("/usr/bin/env", ["man", "-l", man1 + "/" + page], environment: manEnvironment)
            #expect(rendered.status == 0 && rendered.output.contains("NAME") && rendered.errorOutput.isEmpty,
                    "man -l \(page):\n\(rendered.errorOutput)")
        }
        let runPage = try run("/usr/bin/env", ["man", "-l", man1 + "/plugboard-run.1"], environment: manEnvironment)
        #expect(runPage.output.contains("PLUGBOARD-RUN(1)") && runPage.output.contains("--plugin-dir"), "\(runPage.output.prefix(600))")
        let top = try String(contentsOfFile: man1 + "/plugboard.1", encoding: .utf8)
        #expect(top.contains(".Xr plugboard-run 1") && !top.contains(".Xr plugboard.run"), "cross-references follow the names")

        let completion = try run("/bin/bash", ["-c", "source \(install.prefix)/share/bash-completion/completions/plugboard && complete -p plugboard"],
                                 environment: install.environment)
        #expect(completion.status == 0 && completion.output.contains("plugboard"), "\(completion.output)\(completion.errorOutput)")
        for file in ["/share/zsh/site-functions/_plugboard", "/share/fish/vendor_completions.d/plugboard.fish"] {
            #expect(FileManager.default.fileExists(atPath: install.prefix + file), "\(file) installed")
        }
    }

    /// `cpack` makes plugboard_<version>_amd64.deb (the programs, man pages, completions and example plugins,
    /// depending on the system libraries they link, none of Swift) and plugboard-dev_<version>_all.deb (the
    /// headers with the C++ helper, the CMake package, plugboard.pc), both under /usr, with Debian's
    /// conventions: man pages gzipped, the zsh completion in vendor-completions.
    private func debianPackages(_ install: Install) throws {
        try check(run("/usr/bin/env", ["cpack"], workingDirectory: install.build), "cpack")
        let version = HostIdentity.version // the project version in CMakeLists.txt too (VersionTests)
        let runtime = install.build + "/plugboard_\(version)_amd64.deb"
        let development = install.build + "/plugboard-dev_\(version)_all.deb"
        let examples = try Self.exampleCount()

        let runtimeFiles = try Self.contents(of: runtime)
        for file in ["/usr/bin/plugboard", "/usr/libexec/plugboard/plugboard-worker", "/usr/share/man/man1/plugboard.1.gz",
                     "/usr/share/man/man1/plugboard-run.1.gz", "/usr/share/bash-completion/completions/plugboard",
                     "/usr/share/zsh/vendor-completions/_plugboard", "/usr/share/fish/vendor_completions.d/plugboard.fish",
                     "/usr/lib/plugboard/plugins/url-history.so"] {
            #expect(runtimeFiles.contains(file), "\(file) in \(runtime):\n\(runtimeFiles.joined(separator: "\n"))")
        }
        // Debian's conventions: every man page gzipped, no zsh function where Debian's zsh does not look.
        #expect(!runtimeFiles.contains { $0.hasPrefix("/usr/share/man/") && !$0.hasSuffix(".gz") || $0.contains("/zsh/site-functions/") },
                "\(runtimeFiles.joined(separator: "\n"))")
        #expect(runtimeFiles.filter { $0.hasPrefix("/usr/lib/plugboard/plugins/") && $0.hasSuffix(".so") }.count == examples)
        #expect(!runtimeFiles.contains { $0.hasPrefix("/usr/include") || $0.contains("cmake") || $0.hasSuffix(".pc") })

        let developmentFiles = try Self.contents(of: development)
        for file in ["/usr/include/plugboard.h", "/usr/include/plugboard/version.h", "/usr/include/plugboard/cpp/plugin.hpp",
                     "/usr/share/cmake/Plugboard/PlugboardConfig.cmake", "/usr/share/pkgconfig/plugboard.pc"] {
            #expect(developmentFiles.contains(file), "\(file) in \(development):\n\(developmentFiles.joined(separator: "\n"))")
        }
        #expect(!developmentFiles.contains { $0.hasPrefix("/usr/bin") || $0.hasPrefix("/usr/lib") || $0.hasPrefix("/usr/libexec") })
        // No module map at the top of the shared include folder, where it would clash with other packages'.
        #expect(!developmentFiles.contains { $0.hasSuffix(".modulemap") }, "\(developmentFiles.joined(separator: "\n"))")

        let fields = try run("/usr/bin/env", ["dpkg-deb", "--field", runtime, "Package", "Architecture", "Depends"])
        try check(fields, "dpkg-deb --field")
        #expect(fields.output.contains("Package: plugboard\n") && fields.output.contains("Architecture: amd64")
                && fields.output.contains("libffi") && fields.output.contains("libseccomp") && !fields.output.contains("swift"),
                "\(fields.output)")
    }

    /// The files a package holds, as absolute paths, folders left out.
    private static func contents(of package: String) throws -> [String] {
        let listing = try run("/usr/bin/env", ["dpkg-deb", "--contents", package])
        guard listing.status == 0 else { throw TestFailure("dpkg-deb --contents \(package):\n\(listing.errorOutput)") }
        return listing.output.split(separator: "\n").compactMap { line in
            guard let path = line.split(separator: " ").last, !path.hasSuffix("/") else { return nil }
            return String(path.dropFirst())
        }
    }
}
