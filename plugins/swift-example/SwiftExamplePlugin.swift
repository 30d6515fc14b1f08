// A Plugboard plugin written in Swift: a deep-link handler that remembers the links it opened.
//
// Build it with `swift build --product SwiftExamplePlugin`; SwiftPM writes
// libSwiftExamplePlugin.so into .build/<configuration>/, ready for `plugboard run --plugin-dir`.
// PlugboardSDKMacros is PlugboardSDK with `@Plugin`.
import PlugboardSDKMacros

/// The library's one exported symbol. `@c(plugboard_entry)` (Swift 6.3) gives it the C name the
/// host looks up; the body hands the SDK a factory for the library's plugins, which it calls when
/// the host registers them, with the host's services.
@c(plugboard_entry)
public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
    PluginLibrary.entry { host in [try LinkHistoryPlugin(host: host)] }
}

/// Opens `swiftapp://` links and appends each one to `Documents/swift-links.txt` in the
/// application's container. It takes part in three concerns because it conforms to three concern
/// protocols: ``OpenURLPlugin`` (open the link), ``UserActivityPlugin`` (show the history when the
/// user continues it from another device) and ``TerminationPlugin`` (say goodbye).
///
/// The link `swiftapp://trap` traps on purpose (`fatalError`), to show that a Swift trap is a
/// crash like any other: a worker dies and is reported (`--isolation process`), or the host dies
/// with a fault line naming this plugin (`--isolation none`).
///
/// `@Plugin` gives the type C entries of its own: the host's calls reach its methods as directly as
/// a C plugin's. Without it, the SDK's shared entries serve, a few nanoseconds slower per call,
/// and the build needs no swift-syntax.
@Plugin
struct LinkHistoryPlugin: OpenURLPlugin, UserActivityPlugin, TerminationPlugin {
    /// Who the plugin is; the id attributes its log lines and its answers.
    let descriptor: PluginDescriptor
    /// A swift-log Logger: its messages reach the host's log, attributed to this plugin.
    let log: Logger
    /// The container, or nil under `plugboard list` and `inspect`.
    let files: ContainerFiles?

    /// Throws if the id were malformed; the SDK then logs why and the library is refused.
    init(host: PlugboardHost) throws {
        descriptor = PluginDescriptor(id: try PluginID(validating: "com.example.swift-links"),
                                      name: "Swift link history", version: "1.0.0", priority: 10)
        log = host.logger(for: descriptor.id)
        files = host.files
    }

    /// Handles `swiftapp://` links; any other link is left to the next plugin. The text is lent for
    /// the call (`TextSpan`): a link that is not ours costs no copy, and ours is copied into a
    /// `String` to be kept. (Writing `func open(url: String, options: String)` instead works too, and
    /// copies both texts on every call.)
    func open(url: TextSpan, options: TextSpan) -> Bool {
        guard url.hasBytePrefix(Self.scheme) else { return false }
        let link = String(copying: url)
        let target = link.dropFirst(Self.scheme.utf8CodeUnitCount)
        if target == "trap" { fatalError("asked to trap by \(link)") }
        do {
            let history = try readHistory()
            try files?.write(history + target + "\n", to: Self.historyPath, overwrite: true)
            log.info("open \(target)")
        } catch {
            log.warning("open \(target), not remembered: \(error)")
        }
        return true
    }

    /// Continues the `com.example.swift-links.show-history` activity (Handoff: the user was looking
    /// at the history on another device): logs the history; any other activity is left to the next plugin.
    func continueUserActivity(type: TextSpan, userInfo: TextSpan) -> Bool {
        guard type.bytesEqual(to: "com.example.swift-links.show-history".utf8) else { return false }
        do {
            let links = try readHistory().split(separator: "\n")
            log.info("history: \(links.isEmpty ? "empty" : links.joined(separator: ", "))")
        } catch {
            log.warning("cannot read the history: \(error)")
        }
        return true
    }

    /// Reports how many links the history holds.
    func willTerminate() {
        do {
            let count = try readHistory().split(separator: "\n").count
            log.info("remembered \(count) link(s)")
        } catch {
            log.warning("cannot read the history: \(error)")
        }
    }

    /// The links this plugin opens.
    static let scheme: StaticString = "swiftapp://"

    /// Where the history is kept, in the container.
    static let historyPath = "Documents/swift-links.txt"

    /// The history's text; "" before the first link (or without a container).
    private func readHistory() throws(ContainerFilesError) -> String {
        guard let files, try files.exists(Self.historyPath) else { return "" }
        return String(decoding: try files.read(Self.historyPath), as: UTF8.self)
    }
}

/// A function the host and other plugins call by name (ABI 1.2):
/// `plugboard call --isolation none --plugin-dir DIR com.example.swift-links.is_app_link swiftapp://item/7`. A typed Swift closure;
/// the SDK derives its signature, `bool (string)`, from the closure's types. It may run on any thread.
extension LinkHistoryPlugin: FunctionsPlugin {
    var functions: [PluginFunction] {
        [PluginFunction("is_app_link", doc: "Whether URL is a swiftapp:// link this plugin opens") { (url: String) -> Bool in
            url.hasPrefix("swiftapp://")
        }]
    }
}
