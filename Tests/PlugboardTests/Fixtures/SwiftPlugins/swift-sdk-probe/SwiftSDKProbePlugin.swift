// A test fixture for the Swift SDK (libSwiftSDKProbePlugin.so, a product of the fixture package
// ../Package.swift): what the example does not show, driven by the test through its inputs.
//
// - The factory throws when the environment has SWIFT_SDK_PROBE_FACTORY=throw (workers inherit it).
// - A remote notification whose userInfo has "answer": "now" is answered no-data before the callback
//   returns; "later" is answered new-data from another thread, after the callback returned.
// - The URL probe://files runs every files call of ContainerFiles and logs each result, one line each;
//   probe://list/<container path> logs that folder's listing, each name in brackets.
// - Saved state: probe://count adds one to a count and logs "count N"; the state is "count N";
//   restoreState logs "restored count N (saved by VERSION)" and takes the count back.
// - The URL probe://bus/observe observes com.example.probe.news, logging "bus: NAME PAYLOAD from SENDER"
//   for each; probe://bus/post posts it ({"from":"probe"}), then a malformed name, logging the error.
// - The URL probe://dispatch gives Dispatch's global queue 64 items of 100 ms, more than its pool has
//   threads, waits for them and logs "dispatch: all done" (or "dispatch: timed out" after 20 s).
import Dispatch
import Glibc
import PlugboardSDK

@c(plugboard_entry)
public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
    PluginLibrary.entry { host in
        if getenv("SWIFT_SDK_PROBE_FACTORY").map({ String(cString: $0) }) == "throw" {
            throw ProbeRefusal()
        }
        return [try ProbePlugin(host: host)]
    }
}

/// The error the factory throws; the load report and the log must show its description.
struct ProbeRefusal: Error, CustomStringConvertible {
    var description: String { "the probe was told to refuse the library" }
}

struct ProbePlugin: OpenURLPlugin, RemoteNotificationPlugin, SavedStatePlugin {
    let descriptor: PluginDescriptor
    let log: Logger
    let files: ContainerFiles?
    /// The URLs counted over every run (called on the dispatch thread only).
    final class Count { var value = 0 }
    let count = Count()
    let host: PlugboardHost

    init(host: PlugboardHost) throws {
        descriptor = PluginDescriptor(id: try PluginID(validating: "com.example.swift-sdk-probe"))
        log = host.logger(for: descriptor.id)
        files = host.files
        self.host = host
    }

    /// probe://bus/observe and probe://bus/post.
    private func bus(_ url: String) -> Bool {
        let log = log
        switch url {
        case "probe://bus/observe":
            step("observe") {
                _ = try host.observe("com.example.probe.news", as: descriptor.id) { notification in
                    log.info("bus: \(notification.name) \(notification.payload) from \(notification.sender)")
                }
                return "ok"
            }
        case "probe://bus/post":
            step("post") { try host.post("com.example.probe.news", payload: #"{"from":"probe"}"#, as: descriptor.id); return "ok" }
            step("post") { try host.post("not a name", as: descriptor.id); return "ok" }
        default:
            return false
        }
        return true
    }

    func didReceiveRemoteNotification(userInfo: String, completion: FetchCompletion) {
        if userInfo.contains(#""answer":"now""#) {
            completion(.noData)
        } else if userInfo.contains(#""answer":"later""#) {
            Task.detached {
                try? await Task.sleep(for: .milliseconds(100))
                completion(.newData)
            }
        }
    }

    func saveState() -> [UInt8]? {
        Array("count \(count.value)".utf8)
    }

    func restoreState(_ state: [UInt8], savedVersion: String) -> Bool {
        let text = String(decoding: state, as: UTF8.self)
        guard text.hasPrefix("count "), let value = Int(text.dropFirst("count ".count)) else { return false }
        count.value = value
        log.info("restored \(text) (saved by \(savedVersion))")
        return true
    }

    func open(url: String, options: String) -> Bool {
        if url == "probe://dispatch" {
            let items = DispatchGroup()
            for _ in 0..<64 { DispatchQueue.global().async(group: items) { _ = usleep(100_000) } }
            let outcome = items.wait(timeout: .now() + 20) == .success ? "all done" : "timed out"
            log.info("dispatch: \(outcome)")
            return true
        }
        if url == "probe://count" {
            count.value += 1
            log.info("count \(count.value)")
            return true
        }
        if url.hasPrefix("probe://bus/") { return bus(url) }
        guard let files else { return false }
        if url.hasPrefix("probe://list/") {
            let path = String(url.dropFirst("probe://list/".count))
            step("list") { try files.list(path).map { "[\($0.name)]:\($0.kind.rawValue)" }.joined(separator: ",") }
            return true
        }
        guard url == "probe://files" else { return false }
        step("write") { try files.write("hello", to: "Documents/probe/a.txt", createFolders: true); return "ok" }
        step("write") { try files.write([], to: Self.escapedName); return "ok" }
        step("list") { try files.list("Documents/probe").map { "\($0.name):\($0.kind.rawValue)" }.joined(separator: ",") }
        step("attributes") {
            let attributes = try files.attributes(of: "Documents/probe/a.txt")
            return "\(attributes.kind.rawValue) \(attributes.size) bytes, modified \(attributes.modified > .zero)"
        }
        step("copy") { try files.copy("Documents/probe/a.txt", to: "Library/copies/a.txt", createFolders: true); return "ok" }
        step("copy again") { try files.copy("Documents/probe/a.txt", to: "Library/copies/a.txt"); return "ok" }
        step("rename") { try files.rename("Documents/probe/a.txt", to: "b.txt"); return "ok" }
        step("move") { try files.move("Documents/probe/b.txt", to: "Library/moved/b.txt", createFolders: true); return "ok" }
        step("change extension") { try files.changeExtension(of: "Library/copies/a.txt", to: "md") }
        step("list") { try files.list("Library/copies").map { "\($0.name):\($0.kind.rawValue)" }.joined(separator: ",") }
        step("remove") { try files.remove(Self.escapedName); return "ok" }
        step("remove") { try files.remove("Documents/probe"); return "ok" }
        step("list") { try files.list("Documents").map { "\($0.name):\($0.kind.rawValue)" }.joined(separator: ",") }
        return true
    }

    /// A name the listing's JSON escapes (quotes, a backslash) or carries as UTF-8 (é, an emoji).
    static let escapedName = #"Documents/probe/say "hi" \ é 😀.txt"#

    /// Logs `name: <result>` or `name failed: <the error>` (a ContainerFilesError is the host's sentence).
    private func step(_ name: String, _ call: () throws -> String) {
        do {
            let result = try call()
            log.info("\(name): \(result)")
        } catch {
            log.info("\(name) failed: \(error)")
        }
    }
}
