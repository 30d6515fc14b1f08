extension LanguageTemplate {
    /// A Swift plugin on `PlugboardSDK`: a Package.swift with a `.dynamic` library product and its one source file.
    static func swift(_ project: Scaffold) -> LanguageTemplate {
        let name = project.name.rawValue
        let type = project.name.typeName
        return LanguageTemplate(
            files: [
                ProjectFile(path: "Package.swift", text: #"""
                    // swift-tools-version:6.3
                    // \#(name): a Plugboard plugin in Swift, made by `plugboard new`.
                    import PackageDescription

                    /// The Plugboard package (the Swift SDK), found by `plugboard new`: change this path if it moves.
                    let plugboardSDK = "\#(project.sdk)"

                    let package = Package(
                        name: "\#(name)",
                        products: [
                            // The drop-in plugin: .build/<configuration>/lib\#(type).so.
                            .library(name: "\#(type)", type: .dynamic, targets: ["\#(type)"]),
                        ],
                        dependencies: [.package(name: "Plugboard", path: plugboardSDK)],
                        targets: [
                            // PlugboardSDKMacros: PlugboardSDK with `@Plugin` (which builds swift-syntax once).
                            .target(name: "\#(type)", dependencies: [.product(name: "PlugboardSDKMacros", package: "Plugboard")]),
                        ],
                        swiftLanguageModes: [.v6]
                    )

                    """#),
                ProjectFile(path: "Sources/\(type)/\(type).swift", text: #"""
                    // \#(name): a Plugboard plugin in Swift, made by `plugboard new`. It opens
                    // \#(project.name.scheme):// links and logs at launch and at termination.
                    import PlugboardSDKMacros

                    /// The library's one exported C symbol: the SDK's entry record, with the factory that
                    /// makes the library's plugins when the host registers them.
                    @c(plugboard_entry)
                    public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
                        PluginLibrary.entry { host in [try \#(type)(host: host)] }
                    }

                    /// The plugin: its concerns are the protocols it conforms to. `@Plugin` gives it C entries
                    /// of its own, near C's speed; without it the SDK's shared entries serve.
                    @Plugin
                    struct \#(type): LaunchPlugin, OpenURLPlugin, TerminationPlugin {
                        /// Who the plugin is: the id is reverse-DNS and unique in the process.
                        let descriptor: PluginDescriptor
                        /// Logs to the host's log, attributed to this plugin.
                        let log: Logger

                        /// Throws if the id were malformed: the SDK logs why and refuses the library.
                        init(host: PlugboardHost) throws {
                            descriptor = PluginDescriptor(id: try PluginID(validating: "\#(project.id)"), name: "\#(name)", version: "0.1.0")
                            log = host.logger(for: descriptor.id)
                        }

                        /// Launch is a vote: false would veto it. Text is lent for the call
                        /// (`TextSpan`, no copy); the `String` forms of the methods work too, at a copy per call.
                        func didFinishLaunching(options: TextSpan) -> Bool {
                            log.info("launched")
                            return true
                        }

                        /// Asked for each URL until a plugin answers true.
                        func open(url: TextSpan, options: TextSpan) -> Bool {
                            guard url.hasBytePrefix(Self.scheme) else { return false }
                            log.info("open \(String(copying: url).dropFirst(Self.scheme.utf8CodeUnitCount))")
                            return true
                        }

                        func willTerminate() {
                            log.info("terminating")
                        }

                        /// The links this plugin opens.
                        static let scheme: StaticString = "\#(project.name.scheme)://"
                    }

                    """#),
            ],
            build: "swift build", libraryDirectory: ".build/debug", libraryFile: "lib\(type).so",
            sdkSetting: "the `plugboardSDK` constant of Package.swift", ignored: ["/.build/", "/.swiftpm/"])
    }
}
