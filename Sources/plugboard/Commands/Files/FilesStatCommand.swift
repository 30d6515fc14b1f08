import ArgumentParser
import PlugboardFiles

/// `plugboard files stat PATH`: size, kind, permissions, owner and dates of one entry.
struct FilesStatCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "stat",
        abstract: "Show an entry's size, kind, permissions, owner and dates.",
        discussion: """
            Describes the entry itself: a symbolic link is reported as one, never followed. \
            Dates are ISO 8601 in UTC; the creation date is "unknown" (null with --json) when \
            the kernel or the file system does not record it. --json prints one object with \
            path, kind, size, permissions (octal), permissionsSymbolic, ownerID, ownerName \
            (null when the user database does not know the ID), modified and created.

            A standard directory (Documents, Documents/Inbox, Library, tmp) is described \
            itself, as 'plugboard files ls --long' lists the four.

            Examples:
              plugboard files stat Documents/notes/a.txt
              plugboard files stat Library/prefs.json --json

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: FilesHelp.path("The entry to describe"))
    var path: String

    @OptionGroup var container: ContainerOptions
    @OptionGroup var output: OutputOptions

    /// The `--json` document.
    struct Description: Encodable {
        let path: String
        let kind: String
        let size: UInt64
        let permissions: String
        let permissionsSymbolic: String
        let ownerID: UInt32
        let ownerName: String?
        let modified: String
        let created: String?

        private enum CodingKeys: String, CodingKey {
            case path, kind, size, permissions, permissionsSymbolic, ownerID, ownerName, modified, created
        }

        /// Every key is written; an unknown owner name or creation date is null.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(kind, forKey: .kind)
            try container.encode(size, forKey: .size)
            try container.encode(permissions, forKey: .permissions)
            try container.encode(permissionsSymbolic, forKey: .permissionsSymbolic)
            try container.encode(ownerID, forKey: .ownerID)
            try container.encode(ownerName, forKey: .ownerName)
            try container.encode(modified, forKey: .modified)
            try container.encode(created, forKey: .created)
        }
    }

    func run() throws {
        try FilesSession.perform(container) { session in
            let (shown, attributes): (String, FileAttributes)
            if let standard = FilesSession.standardDirectory(path) {
                (shown, attributes) = (standard.relativePath, try session.facade.attributes(of: standard))
            } else {
                let location = try session.location(path)
                (shown, attributes) = (FilesSession.containerPath(location),
                                       try session.facade.attributes(of: location.name, in: location.directory))
            }
            let description = Description(
                path: shown, kind: attributes.kind.rawValue, size: attributes.size,
                permissions: FilesFormat.octal(attributes.permissions.rawValue),
                permissionsSymbolic: FilesFormat.symbolic(attributes.permissions.rawValue),
                ownerID: attributes.ownerID, ownerName: attributes.ownerName,
                modified: FilesFormat.iso8601(attributes.modificationDate),
                created: attributes.creationDate.map(FilesFormat.iso8601))
            try FilesSession.output(output.json ? [JSONOutput.encode(description, pretty: true)] : lines(description))
        }
    }

    private func lines(_ d: Description) -> [String] {
        func row(_ key: String, _ value: String) -> String { FilesFormat.padded(key, 13) + value }
        return [
            row("Path", ControlCharacters.escaped(d.path)),
            row("Kind", d.kind),
            row("Size", "\(d.size) byte" + (d.size == 1 ? "" : "s")),
            row("Permissions", "\(d.permissions) (\(d.permissionsSymbolic))"),
            row("Owner", "\(d.ownerID) (\(d.ownerName.map(ControlCharacters.escaped) ?? "unknown"))"),
            row("Modified", d.modified),
            row("Created", d.created ?? "unknown"),
        ]
    }
}
