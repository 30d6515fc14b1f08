import PlugboardFiles

/// The built-in file plugin: owns the application container's lifecycle. It
/// creates the standard directories when the application is about to finish
/// launching (and vetoes the launch, saying why, if it cannot), and empties
/// `tmp` when the application terminates.
///
/// Its priority puts it first at launch and, since termination runs in reverse,
/// last at terminate, so other plugins find the directories in place.
public struct FilesPlugin: LaunchPlugin, TerminationPlugin {
    /// `org.plugboard.files`, priority ``priority``.
    public let descriptor = PluginDescriptor(
        id: FilesPlugin.id, name: "Files", version: HostIdentity.version, priority: FilesPlugin.priority)
    /// The facade over the container this plugin manages.
    public let facade: FileFacade
    private let log: PluginHost.LogHandler

    /// The plugin's id.
    public static let id = PluginID(unchecked: "org.plugboard.files")
    /// Above every usual plugin priority.
    public static let priority: Int32 = 1_000_000

    /// Manages `facade`'s container; problems are reported through `log`.
    public init(facade: FileFacade, log: @escaping PluginHost.LogHandler = { _ in }) {
        self.facade = facade
        self.log = log
    }

    /// Creates the container's directories; vetoes the launch if it cannot, with the reason logged.
    public func willFinishLaunching(options: String) -> Bool {
        do {
            try facade.container.createDirectories()
            return true
        } catch {
            report(.error, "cannot create the container's directories: \(error)")
            return false
        }
    }

    /// Empties `tmp`.
    public func willTerminate() {
        do {
            try facade.container.emptyTemporaryDirectory()
        } catch {
            report(.warning, "cannot empty tmp: \(error)")
        }
    }

    private func report(_ level: PluginLogRecord.Level, _ message: String) {
        log(PluginLogRecord(source: HostIdentity.name, plugin: Self.id.rawValue, level: level, message: message))
    }
}
