// swift-tools-version:6.3
import PackageDescription

// The Swift plugins of the tests, each a drop-in `.so` built with the PlugboardSDK of this checkout.
// A package of their own, so that they are not products of Plugboard: the tests build it once per
// run (SwiftPluginFixtures in Tests/PlugboardTests/SwiftSDK).
let package = Package(
    name: "SwiftPluginFixtures",
    products: [
        // The Swift SDK tests' probe plugin (libSwiftSDKProbePlugin.so).
        .library(name: "SwiftSDKProbePlugin", type: .dynamic, targets: ["SwiftSDKProbePlugin"]),
        // Swift functions of every type (libSwiftFunctionsPlugin.so).
        .library(name: "SwiftFunctionsPlugin", type: .dynamic, targets: ["SwiftFunctionsPlugin"]),
        // Invokes another plugin's function at launch (libSwiftInvokePlugin.so).
        .library(name: "SwiftInvokePlugin", type: .dynamic, targets: ["SwiftInvokePlugin"]),
        // `@Plugin` on a class whose plugin is a subclass with a concern more (libSwiftEntriesPlugin.so).
        .library(name: "SwiftEntriesPlugin", type: .dynamic, targets: ["SwiftEntriesPlugin"]),
    ],
    dependencies: [
        // The Plugboard package this folder is part of.
        .package(name: "Plugboard", path: "../../../.."),
    ],
    targets: [
        .target(name: "SwiftSDKProbePlugin", dependencies: [.product(name: "PlugboardSDK", package: "Plugboard")],
                path: "swift-sdk-probe"),
        .target(name: "SwiftFunctionsPlugin", dependencies: [.product(name: "PlugboardSDK", package: "Plugboard")],
                path: "swift-functions"),
        .target(name: "SwiftInvokePlugin", dependencies: [.product(name: "PlugboardSDK", package: "Plugboard")],
                path: "swift-invoke"),
        .target(name: "SwiftEntriesPlugin", dependencies: [.product(name: "PlugboardSDKMacros", package: "Plugboard")],
                path: "swift-entries"),
    ],
    swiftLanguageModes: [.v6]
)
