import Glibc
import PlugboardFiles
import PlugboardSystem

/// Where saved states live: one file per plugin id, `<id>.state`, in the container's
/// `Library/Plugboard State/`, read and written through the file facade (atomic writes:
/// a new file renamed over the old one, so a file is always the old state or the new).
public struct SavedStateStore: Sendable {
    /// The container's files.
    public let facade: FileFacade

    /// The folder of the state files inside `Library`.
    public static let folder = "Plugboard State"
    /// Every state file's name ends so.
    public static let fileExtension = ".state"

    /// The store of `facade`'s container.
    public init(facade: FileFacade) {
        self.facade = facade
    }

    /// The name of `id`'s state file in `Library`.
    public func name(of id: PluginID) -> String {
        Self.folder + "/" + id.rawValue + Self.fileExtension
    }

    /// The absolute path of `id`'s state file, for messages.
    public func path(of id: PluginID) -> String {
        facade.container.path(of: .library) + "/" + name(of: id)
    }

    /// `id`'s saved state: none when there is no file, else the state or why the file is unusable.
    public func load(_ id: PluginID) -> SavedStateLookup {
        let bytes: [UInt8]
        do {
            // No state file is larger than its largest state with the longest header: a larger one is
            // refused as it is read, through the descriptor read (it may grow, or be replaced, meanwhile).
            bytes = try facade.readBytes(name(of: id), in: .library, atMost: Int(SavedStateFile.maximumFileSize))
        } catch where error.reason == .notFound {
            return .none
        } catch where error.reason == .tooLarge(limit: Int(SavedStateFile.maximumFileSize)) {
            return .unusable(SavedStateProblem(path: path(of: id), cause:
                "larger than any state file (at most \(SavedStateFile.maximumFileSize) bytes)"))
        } catch {
            return .unusable(SavedStateProblem(path: path(of: id), cause: error.description))
        }
        do throws(SavedStateFileError) {
            let file = try SavedStateFile.decode(bytes)
            guard file.pluginID == id.rawValue else { throw .foreign(savedFor: file.pluginID) }
            return .found(file)
        } catch {
            return .unusable(SavedStateProblem(path: path(of: id), cause: error.description))
        }
    }

    /// Stores `file` for its plugin, replacing the previous one atomically (creating
    /// `Library` and its folder when missing).
    public func save(_ file: SavedStateFile, for id: PluginID) throws(FileFacadeError) {
        let bytes = file.encoded()
        do {
            try facade.writeBytes(bytes, to: name(of: id), in: .library, overwrite: true, createIntermediateDirectories: true)
        } catch where error.reason == .notFound {
            try facade.container.createDirectories()
            try facade.writeBytes(bytes, to: name(of: id), in: .library, overwrite: true, createIntermediateDirectories: true)
        }
    }

    /// The name in `Library` under which ``setAside(_:)`` keeps `id`'s state file.
    public func asideName(of id: PluginID) -> String {
        name(of: id) + Self.asideSuffix
    }

    /// Ends the name of a state file kept aside (not a `*.state` file: no listing or removal takes it).
    public static let asideSuffix = ".unusable"

    /// Renames `id`'s state file to ``asideName(of:)``, replacing one kept aside before, so that the
    /// next state saved for `id` destroys nothing that a later host, or a person, could still read
    /// (a file from a newer host, a damaged one, one this host could not read). Returns its new path.
    public func setAside(_ id: PluginID) throws(FileFacadeError) -> String {
        try facade.rename(name(of: id), in: .library, to: id.rawValue + Self.fileExtension + Self.asideSuffix, overwrite: true)
        return facade.container.path(of: .library) + "/" + asideName(of: id)
    }

    /// Removes `id`'s state file; a missing one is an error (`notFound`).
    public func remove(_ id: PluginID) throws(FileFacadeError) {
        try facade.delete(name(of: id), in: .library)
    }

    /// Removes every state file (`*.state`, a regular file) of the folder, going on past one that
    /// cannot be removed (a name the container refuses, say): the names removed, and why each other
    /// was not; none when the folder is missing. Another entry with such a name (a folder, a link) is
    /// no state file: it stays, and is no failure. Throws only when the folder cannot be listed.
    public func removeAll() throws(FileFacadeError) -> (removed: [String], failures: [FileFacadeError]) {
        var removed: [String] = []
        var failures: [FileFacadeError] = []
        for name in try stateFileNames(filesOnly: true) {
            do {
                try facade.delete(Self.folder + "/" + name, in: .library)
                removed.append(name)
            } catch {
                failures.append(error)
            }
        }
        return (removed, failures)
    }

    /// Every `*.state` file of the folder, sorted by name, each read: none when the folder is missing.
    public func list() throws(FileFacadeError) -> [SavedStateListing] {
        try stateFileNames().map(listing)
    }

    /// The names of the folder's `*.state` entries (`filesOnly`: its regular files), sorted
    /// (temporary files of a write in progress are hidden).
    private func stateFileNames(filesOnly: Bool = false) throws(FileFacadeError) -> [String] {
        let entries: [DirectoryEntry]
        do {
            entries = try facade.listContents(of: .library, folder: Self.folder)
        } catch where error.reason == .notFound {
            return []
        }
        return entries.filter { (!filesOnly || $0.kind == .file) && $0.name.hasSuffix(Self.fileExtension) && !$0.name.hasPrefix(".") }
            .map(\.name)
    }

    private func listing(_ fileName: String) -> SavedStateListing {
        let stem = String(fileName.dropLast(Self.fileExtension.count))
        let path = facade.container.path(of: .library) + "/" + Self.folder + "/" + fileName
        guard let id = try? PluginID(validating: stem) else {
            return SavedStateListing(fileName: fileName, path: path, size: nil,
                                     content: .failure(SavedStateProblem(path: path, cause: "'\(stem)' is not a plugin id")))
        }
        let size = try? facade.attributes(of: name(of: id), in: .library).size
        return switch load(id) {
        case .found(let file): SavedStateListing(fileName: fileName, path: path, size: size, content: .success(file))
        case .none: SavedStateListing(fileName: fileName, path: path, size: size,
                                      content: .failure(SavedStateProblem(path: path, cause: "removed while listed")))
        case .unusable(let problem): SavedStateListing(fileName: fileName, path: path, size: size, content: .failure(problem))
        }
    }
}

/// What the store holds for one plugin id.
public enum SavedStateLookup: Sendable, Equatable {
    /// No state file: the plugin starts without state, quietly.
    case none
    /// A valid state saved for this id.
    case found(SavedStateFile)
    /// A file that cannot be used (unreadable, corrupt, truncated, foreign): no state, and a warning.
    case unusable(SavedStateProblem)
}

/// One file of the state folder as `plugboard state ls` shows it.
public struct SavedStateListing: Sendable {
    /// The file's name in the folder, e.g. `com.example.x.state`.
    public let fileName: String
    /// Its absolute path.
    public let path: String
    /// Its size in bytes, when it could be read.
    public let size: UInt64?
    /// The state, or why the file is unusable.
    public let content: Result<SavedStateFile, SavedStateProblem>
}

/// A state file that cannot be used: its path and the cause.
public struct SavedStateProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's absolute path.
    public let path: String
    /// Why it cannot be used, e.g. `checksum mismatch (…): the file is damaged`.
    public let cause: String

    /// `'<path>': <cause>`.
    public var description: String { "'\(path)': \(cause)" }
}
