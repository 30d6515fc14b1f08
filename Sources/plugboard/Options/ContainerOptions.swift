import ArgumentParser
import Glibc
import PlugboardFiles

/// `--container` and `--app-name`: which application container the file facade works in.
struct ContainerOptions: ParsableArguments {
    /// The app name used when `--app-name` is not given.
    static let defaultAppName = "plugboard-app"

    @Option(name: .customLong("container"),
            help: ArgumentHelp("The application's container root (a relative path is taken from the current directory). Default: $XDG_DATA_HOME/plugboard/<app-name>, else ~/.local/share/plugboard/<app-name>.",
                               valueName: "dir"),
            transform: WorkingDirectory.absolute)
    var containerPath: String?

    @Option(name: .customLong("app-name"),
            help: ArgumentHelp("The application's name, which picks the default container (default: \(ContainerOptions.defaultAppName)); not with --container.",
                               valueName: "name"))
    var appName: String?

    /// The container these options name; a bad value is a usage error that says why.
    func container() throws -> Container {
        do {
            if let containerPath {
                guard !containerPath.isEmpty else { throw ValidationError("--container needs a directory path, got an empty one") }
                return try Container(rootPath: containerPath)
            }
            return try Container(appName: appName ?? Self.defaultAppName)
        } catch let error as FileFacadeError {
            // The app name is one folder's name under the data folder: a name that cannot be one is
            // said in the option's words, not the facade's operation.
            switch (error.operation, error.reason) {
            case (.resolveDefaultRoot, .invalidName), (.resolveDefaultRoot, .escapesContainer):
                throw ValidationError("--app-name \(quoted: error.name) cannot name the container's folder: \(error.reason.summary)")
            default:
                throw ValidationError("cannot use the container: \(error)")
            }
        } catch {
            throw ValidationError("cannot use the container: \(error)")
        }
    }

    /// The file facade over the container these options name, its directories made when missing
    /// before any plugin loads (a plugin's `init` may use the files service); with why they could
    /// not be made, if so.
    func facade() throws -> (facade: FileFacade, directoriesFailure: String?) {
        let facade = FileFacade(container: try container())
        do {
            try facade.container.createDirectories()
            return (facade, nil)
        } catch {
            return (facade, "\(error)")
        }
    }

    /// The longest container root taken: what leaves room for its standard folders and the paths
    /// in them under PATH_MAX (a longer one fails only once its folders are being made).
    static let longestRoot = 2048

    func validate() throws {
        if containerPath != nil, let appName {
            throw ValidationError("give --container or --app-name, not both: --container names the container itself, --app-name \(String(reflecting: appName)) its default place")
        }
        let root = try container().rootPath
        guard root.utf8.count <= Self.longestRoot else {
            throw ValidationError("the container path is \(root.utf8.count) bytes long; the longest taken is \(Self.longestRoot)")
        }
        // Something there that is not a folder is a mistake to say now, before any plugin runs.
        var status = stat()
        if stat(root, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw ValidationError("the container \(quoted: root) is not a directory")
        }
    }
}
