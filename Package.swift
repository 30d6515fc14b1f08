// swift-tools-version:6.3
import CompilerPluginSupport
import PackageDescription

// The host's executables export no symbol. Linked with the Swift runtime inside (`--static-swift-stdlib`, how
// the host is installed), the toolchain adds --export-dynamic, and a Swift plugin's own copies of the SDK and
// plugin API would bind to the host's, run by the host's runtime instead of the plugin's. A plugin reaches the
// host only through the C ABI's tables, never by symbol.
let exportsNothing: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]

let package = Package(
    name: "Plugboard",
    products: [
        .library(name: "Plugboard", targets: ["Plugboard"]),
        .library(name: "PlugboardFiles", targets: ["PlugboardFiles"]),
        .library(name: "PlugboardSDK", targets: ["PlugboardSDK"]),
        // `@Plugin`, which gives a Swift plugin type C entries of its own; apart from PlugboardSDK, as it
        // builds swift-syntax with the plugin.
        .library(name: "PlugboardSDKMacros", targets: ["PlugboardSDKMacros"]),
        // The Swift example plugin: a drop-in `.so` (libSwiftExamplePlugin.so).
        .library(name: "SwiftExamplePlugin", type: .dynamic, targets: ["SwiftExamplePlugin"]),
        .executable(name: "plugboard", targets: ["plugboard"]),
        .executable(name: "plugboard-worker", targets: ["plugboard-worker"]),
        .executable(name: "plugboard-benchmark", targets: ["PlugboardBenchmark"]),
        .executable(name: "plugboard-files-benchmark", targets: ["PlugboardFilesBenchmark"]),
        // The Swift plugin of the benchmark's language rows (libPlugboardBenchmarkSwiftPlugin.so).
        .library(name: "PlugboardBenchmarkSwiftPlugin", type: .dynamic, targets: ["PlugboardBenchmarkSwiftPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // The C ABI: the top-level include/ is a header-only C module.
        .target(name: "CPlugboard", path: "include", publicHeadersPath: "."),
        // System calls the one way: retried on EINTR, failures as swift-system's `Errno`.
        .target(
            name: "PlugboardSystem",
            dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        // Starting a child process, the one way the host (plugin workers), the tests and the benchmarks do it.
        .target(
            name: "PlugboardChildProcess",
            dependencies: ["PlugboardSystem", .product(name: "SystemPackage", package: "swift-system")]),
        // The host–worker wire protocol (WORKER-PROTOCOL.md): framing, messages, channel; no Foundation.
        .target(
            name: "PlugboardWorkerProtocol",
            dependencies: ["PlugboardPluginAPI", "PlugboardSystem", .product(name: "SystemPackage", package: "swift-system")]),
        // The sandboxed file facade; knows nothing of plugins.
        .target(
            name: "PlugboardFiles",
            dependencies: ["PlugboardSystem", .product(name: "SystemPackage", package: "swift-system")]),
        // libffi, the one system library: calls plugin functions by their declared signatures (Sources/Plugboard/Calls).
        .systemLibrary(name: "CFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
        // Which plugin code runs, read by async-signal-safe fault reporting (C for that reason).
        .target(name: "CFaultReporter"),
        // What a plugin worker needs from Linux that Swift cannot call directly.
        .target(name: "CWorkerSupport"),
        // The worker's kernel sandbox: Landlock through its system calls, seccomp through libseccomp
        // (Debian's libseccomp-dev), no_new_privs, capabilities, limits (Sources/Plugboard/Sandbox is its Swift face).
        .target(name: "CSandbox", dependencies: ["CFaultReporter"], linkerSettings: [.linkedLibrary("seccomp")]),
        // The plugin protocols (ApplicationPlugin, the concern protocols, PluginDescriptor, PluginID,
        // FetchResult, FetchCompletion): one small module that the host re-exports and the Swift SDK uses,
        // so a Swift author conforms to the very protocols the host dispatches to. It is linked statically
        // into each Swift plugin: only C types cross a plugin's boundary, so the host never casts a
        // plugin's Swift types and the two copies never meet.
        // Lifetimes: TextSpan, the text a plugin is lent, is a view that cannot outlive the call.
        .target(name: "PlugboardPluginAPI", dependencies: ["CPlugboard", "CFFI"],
                swiftSettings: [.enableExperimentalFeature("Lifetimes")]),
        // The Swift plugin SDK: turns plugin values into the C entry record, vtables and host services
        // (a swift-log Logger, files, completions). It carries its own swift-log: only C crosses.
        .target(
            name: "PlugboardSDK",
            dependencies: ["CPlugboard", "CFFI", "PlugboardPluginAPI", .product(name: "Logging", package: "swift-log")]),
        // `@Plugin`: the macro's declaration (PlugboardSDKMacros), its compiler plugin, and its expansion, a
        // library of its own so that the tests link it: a test target that depends on a macro target has
        // the whole test product built a second time, for the compiler's host.
        .target(name: "PlugboardSDKMacros", dependencies: ["PlugboardSDK", "PlugboardMacroPlugin"]),
        .macro(
            name: "PlugboardMacroPlugin",
            dependencies: ["PlugboardMacroExpansion", .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                           .product(name: "SwiftSyntaxMacros", package: "swift-syntax")]),
        .target(
            name: "PlugboardMacroExpansion",
            dependencies: [.product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                           .product(name: "SwiftSyntaxBuilder", package: "swift-syntax")]),
        // The Swift example plugin (plugins/swift-example), built as a drop-in .so.
        .target(name: "SwiftExamplePlugin", dependencies: ["PlugboardSDKMacros"], path: "plugins/swift-example"),
        // The host library: loader, registry, dispatcher, host services, built-in plugins, workers.
        .target(
            name: "Plugboard",
            dependencies: ["CPlugboard", "PlugboardPluginAPI", "CFaultReporter", "CFFI", "CWorkerSupport", "CSandbox", "PlugboardFiles", "PlugboardSystem",
                           "PlugboardWorkerProtocol", "PlugboardChildProcess",
                           .product(name: "SystemPackage", package: "swift-system"),
                           .product(name: "Logging", package: "swift-log")]),
        // `plugboard validate`'s checks, over the host library's worker harness (WorkerHarness).
        .target(
            name: "PlugboardValidation",
            dependencies: ["Plugboard", "CPlugboard", "PlugboardWorkerProtocol"]),
        // The command-line tool.
        .executableTarget(
            name: "plugboard",
            dependencies: [
                "Plugboard",
                "PlugboardValidation",
                "PlugboardFiles",
                "PlugboardSystem",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: exportsNothing),
        // The plugin worker: loads one library out of the host's process and serves its calls.
        // The worker's `open`: its own threads' /proc/TID/stat reachable in the sandbox (libdispatch reads them).
        .target(name: "CWorkerOpen", publicHeadersPath: "."),
        .executableTarget(name: "plugboard-worker", dependencies: ["Plugboard", "CWorkerOpen"], linkerSettings: exportsNothing),
        // Benchmarks: measured as ratios against a hand-written C baseline; see BENCHMARKS.md.
        .target(name: "CBenchmarkBaseline", dependencies: ["CPlugboard", "CFFI"]),
        .executableTarget(
            name: "PlugboardBenchmark",
            dependencies: ["Plugboard", "CBenchmarkBaseline", "PlugboardChildProcess", "PlugboardFiles",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "PlugboardFilesBenchmark", dependencies: ["PlugboardFiles"]),
        .target(name: "PlugboardBenchmarkSwiftPlugin", dependencies: ["PlugboardSDKMacros"]),
        .testTarget(
            name: "PlugboardFilesTests",
            dependencies: ["PlugboardFiles", "PlugboardChildProcess",
                           .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "PlugboardWorkerProtocolTests",
            dependencies: ["PlugboardWorkerProtocol", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "PlugboardTests",
            dependencies: ["Plugboard", "PlugboardValidation", "CPlugboard", "PlugboardChildProcess", "plugboard", "plugboard-worker",
                           "PlugboardMacroExpansion", .product(name: "Logging", package: "swift-log"),
                           .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax")],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
