import ArgumentParser
import PlugboardFiles

/// What every `files` subcommand shares: the facade over a container whose
/// directories exist, container-path parsing, and the one-line error report.
struct FilesSession {
    /// The facade over the chosen container.
    let facade: FileFacade

    /// The container the facade works in.
    var container: Container { facade.container }

    /// The facade location of a container path such as "Documents/notes/a.txt".
    func location(_ path: String) throws(FileFacadeError) -> FileLocation {
        try PathAdapter.location(forContainerPath: path)
    }

    /// `path` without the trailing slashes a shell adds to a directory ("Documents/"), which add
    /// nothing.
    static func trimmed(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// The standard directory `path` names by itself ("Documents", "Documents/"), if it names one.
    static func standardDirectory(_ path: String) -> AppDirectory? {
        AppDirectory(relativePath: trimmed(path))
    }

    /// The container path of a location, for messages and listings.
    static func containerPath(_ location: FileLocation) -> String {
        location.directory.relativePath + "/" + location.name
    }

    /// Runs `body` against the container `options` names, after creating its
    /// directories when missing.
    ///
    /// A failure becomes one line on standard error, `plugboard files: <what, where,
    /// why>` (plus the flag that would help, from `hint`), and exit code 1. A bad
    /// `--container` or `--app-name` is a usage error (64), as `validate()` reports it.
    static func perform(
        _ options: ContainerOptions, hint: (FileFacadeError) -> String? = { _ in nil },
        _ body: (FilesSession) throws -> Void
    ) throws {
        let container = try options.container()
        do {
            try container.createDirectories()
            try body(FilesSession(facade: FileFacade(container: container)))
        } catch let error as FileFacadeError {
            let advice = hint(error) ?? standardDirectoryHint(error)
            try fail(error.description + (advice.map { "; \($0)" } ?? ""))
        }
    }

    /// Runs a two-path operation (`mv`, `cp`) with the destination hints.
    static func transfer(
        _ from: String, _ to: String, _ transfer: TransferOptions, _ options: ContainerOptions,
        _ operation: (FileFacade, FileLocation, FileLocation, TransferOptions) throws -> Void
    ) throws {
        let destination = try? PathAdapter.location(forContainerPath: to)
        let source = try? PathAdapter.location(forContainerPath: from)
        try perform(options, hint: destinationHint(destination, source: source, parents: transfer.parents)) { session in
            try operation(session.facade, try session.location(from), try session.location(to), transfer)
        }
    }

    /// Hints for the operations that take `--overwrite` and `--parents`: an existing
    /// destination suggests `--overwrite`; a missing folder on the way to `destination`
    /// suggests `--parents` (when the command has it and it was not given), unless the error is
    /// as well the `source`'s (the same path moved onto itself: the source is what is missing).
    static func destinationHint(_ destination: FileLocation? = nil, source: FileLocation? = nil, parents: Bool? = nil)
        -> (FileFacadeError) -> String?
    {
        { error in
            switch error.reason {
            case .destinationExists:
                return "add --overwrite to replace it"
            case .notFound:
                guard parents == false, let destination, error.directory == destination.directory,
                      error.name == destination.name,
                      source.map({ $0.directory != error.directory || $0.name != error.name }) ?? true else { return nil }
                return "add --parents to create the missing folders"
            default:
                return nil
            }
        }
    }

    /// A standard directory alone ("Documents") where an entry is needed.
    private static func standardDirectoryHint(_ error: FileFacadeError) -> String? {
        guard error.operation == .adaptPath, error.reason == .invalidName(.empty),
              AppDirectory(relativePath: error.name) != nil else { return nil }
        return "it is a standard directory; name an entry inside it ('plugboard files ls \(error.name)' lists them)"
    }

    /// Writes `lines` to standard output, or ends the command as ``StandardStream/output(_:command:)`` says.
    static func output(_ lines: some Sequence<String>) throws {
        try StandardStream.output(lines, command: "plugboard files")
    }

    /// Reports `message` as the command's one line on standard error and ends it with exit code 1.
    static func fail(_ message: String) throws -> Never {
        StandardStream.writeError("plugboard files: " + ControlCharacters.escaped(message))
        throw ExitCodes.failure
    }
}

/// A `files` subcommand: it names its container with `--container` / `--app-name`.
protocol FilesSubcommand: ParsableCommand {
    /// The container options of the command line.
    var container: ContainerOptions { get }
}

extension FilesSubcommand {
    /// Refuses an empty `--container`, which `ContainerOptions` would take for the
    /// current directory (and `createDirectories()` would then make private, mode 0700).
    func validate() throws {
        if container.containerPath?.isEmpty == true {
            throw ValidationError("--container needs a directory path, got \"\"")
        }
    }
}
