// A `@Plugin` class and a subclass of it that adopts one concern more, registered as the base class:
// the plugin's context is typed by the base class, whose entries serve the concern the base conforms
// to, and the subclass's own concern reaches it through its conformance, as the shared entries do.
import PlugboardSDKMacros

@c(plugboard_entry)
public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
    PluginLibrary.entry { host in
        let plugin: LinkPlugin = try WarnedLinkPlugin(host: host)
        return [plugin]
    }
}

/// Opens `entries://` links.
@Plugin
class LinkPlugin: OpenURLPlugin {
    let descriptor: PluginDescriptor
    let log: Logger

    init(host: PlugboardHost) throws {
        descriptor = PluginDescriptor(id: try PluginID(validating: "com.example.swift-entries"))
        log = host.logger(for: descriptor.id)
    }

    func open(url: TextSpan, options: TextSpan) -> Bool {
        guard url.hasBytePrefix("entries://") else { return false }
        log.info("open \(String(copying: url)) as \(type(of: self))")
        return true
    }
}

/// Also takes part in memory warnings, which its base class does not.
final class WarnedLinkPlugin: LinkPlugin, MemoryWarningPlugin {
    func didReceiveMemoryWarning() {
        log.info("memory warning")
    }
}
