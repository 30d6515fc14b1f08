import ArgumentParser
import Foundation
import Glibc
import PlugboardFiles
import PlugboardSystem

/// `plugboard files ls [PATH]`: the four standard directories, or the entries of one
/// directory or folder, sorted by name.
struct FilesListCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the standard directories, or the entries of a directory or folder.",
        discussion: """
            Without a path, lists the four standard directories (Documents, Documents/Inbox, \
            Library, tmp). With one, lists its entries sorted by the bytes of their names, each \
            with its kind: file, directory, symbolicLink (never followed) or other. --long adds \
            permissions, size in bytes and modification time (local); --json prints an array \
            of objects with name, path, kind, and with --long size, permissions (octal), \
            permissionsSymbolic and modified (ISO 8601, UTC).

            Examples:
              plugboard files ls
              plugboard files ls Documents --long
              plugboard files ls Documents/notes --json --container /srv/app

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: ArgumentHelp(
        "A standard directory (Documents, Documents/Inbox, Library, tmp) or a folder inside one.",
        valueName: "path"))
    var path: String?

    @Flag(name: [.customShort("l"), .long], help: "Add permissions, size and modification time.")
    var long = false

    @OptionGroup var container: ContainerOptions
    @OptionGroup var output: OutputOptions

    /// One row of the listing; also the `--json` object.
    struct Row: Encodable {
        let name: String
        let path: String
        let kind: String
        var size: UInt64?
        var permissions: String?
        var permissionsSymbolic: String?
        var modified: String?
        /// Why the attributes of this entry could not be read (`--long` only).
        var error: String?
        /// The modification date for the human view.
        var modificationDate: Date?

        private enum CodingKeys: String, CodingKey {
            case name, path, kind, size, permissions, permissionsSymbolic, modified, error
        }

        mutating func describe(_ attributes: FileAttributes) {
            size = attributes.size
            permissions = FilesFormat.octal(attributes.permissions.rawValue)
            permissionsSymbolic = FilesFormat.symbolic(attributes.permissions.rawValue)
            modified = FilesFormat.iso8601(attributes.modificationDate)
            modificationDate = attributes.modificationDate
        }
    }

    func run() throws {
        try FilesSession.perform(container) { session in
            let rows = try path.map { try entries(of: $0, session) } ?? standardDirectories(session)
            try FilesSession.output(output.json ? [JSONOutput.encode(rows, pretty: true)] : rows.map(line))
        }
    }

    /// The entries of a standard directory or of a folder inside one.
    private func entries(of path: String, _ session: FilesSession) throws(FileFacadeError) -> [Row] {
        let directory: AppDirectory, folder: String?
        if let standard = FilesSession.standardDirectory(path) {
            (directory, folder) = (standard, nil)
        } else {
            let location = try session.location(FilesSession.trimmed(path))
            (directory, folder) = (location.directory, location.name)
        }
        let base = directory.relativePath + (folder.map { "/" + $0 } ?? "")
        return try session.facade.listContents(of: directory, folder: folder).map { entry -> Row in
            var row = Row(name: entry.name, path: base + "/" + entry.name, kind: entry.kind.rawValue)
            if long {
                let name = (folder.map { $0 + "/" } ?? "") + entry.name
                do throws(FileFacadeError) {
                    row.describe(try session.facade.attributes(of: name, in: directory))
                } catch {
                    // Gone since it was listed, or a name that is not UTF-8: list it anyway.
                    row.error = error.description
                }
            }
            return row
        }
    }

    /// The four standard directories, which the facade creates and never lets a caller name alone.
    private func standardDirectories(_ session: FilesSession) -> [Row] {
        AppDirectory.allCases.sorted { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }
            .map { directory in
                var row = Row(name: directory.relativePath, path: directory.relativePath, kind: FileKind.directory.rawValue)
                guard long else { return row }
                // createDirectories() has just made sure each one is a real directory, not a link.
                var status = stat()
                do {
                    try systemCall { lstat(session.container.path(of: directory), &status) }
                    row.size = UInt64(status.st_size)
                    row.permissions = FilesFormat.octal(status.st_mode)
                    row.permissionsSymbolic = FilesFormat.symbolic(status.st_mode)
                    let date = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec)
                                    + Double(status.st_mtim.tv_nsec) / 1_000_000_000)
                    row.modified = FilesFormat.iso8601(date)
                    row.modificationDate = date
                } catch {
                    row.error = "read attributes \(quoted: directory.relativePath): \(error)"
                }
                return row
            }
    }

    /// "directory     Inbox", or with --long "file  rw-------     12  2026-03-01 13:34  a.txt".
    private func line(_ row: Row) -> String {
        let kind = FilesFormat.padded(row.kind, 12)
        let name = ControlCharacters.escaped(row.name)
        guard long else { return kind + "  " + name }
        guard let size = row.size, let symbolic = row.permissionsSymbolic, let date = row.modificationDate else {
            return kind + "  " + FilesFormat.padded("?", 9) + "  " + FilesFormat.rightAligned("?", 10)
                + "  " + FilesFormat.padded("?", 16) + "  " + name
        }
        return kind + "  " + symbolic + "  " + FilesFormat.rightAligned(String(size), 10)
            + "  " + FilesFormat.humanDate(date) + "  " + name
    }
}
