import CPlugboard
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlugboardFiles
import PlugboardWorkerProtocol

/// One files-service call as a plugin makes it: the operation and its arguments, container
/// paths as text (the `files` request of the worker protocol carries the same).
struct FilesRequest: Sendable {
    let operation: FilesOperation
    let path: String
    var secondPath = ""
    var data: [UInt8] = []
    var flags: UInt32 = 0
    /// The most bytes a result gives (a `read`'s bytes, a listing): what the caller can take (a
    /// worker's reply frame).
    var resultLimit = FilesService.maximumReadBytes
}

/// What a files-service call came to: a `PB_OK` or `PB_ERR_*` status, the result bytes (a file's
/// bytes, a listing's JSON, a new path, an attributes record, an exists byte) and, on failure,
/// the sentence for `last_error`.
struct FilesOutcome: Sendable {
    let status: pb_status_t
    var payload: [UInt8] = []
    var message = ""
}

/// The files service: the file facade for plugins, through the path adapter (container paths as
/// text ↔ facade locations). One request in, one outcome out; the in-process C table
/// (``FilesTable``) adapts it, and a worker's forwarded requests call it directly.
final class FilesService: Sendable {
    let facade: FileFacade

    init(facade: FileFacade) {
        self.facade = facade
    }

    /// Runs `request` unless `gate` denies the files service; every failure becomes a status and a sentence.
    func perform(_ request: FilesRequest, gate: ServiceGate) -> FilesOutcome {
        if let refusal = gate.refusal(.files) { return FilesOutcome(status: PB_ERR_DENIED, message: refusal) }
        if let reserved = Self.reservedPath(of: request) {
            return FilesOutcome(status: PB_ERR_PERMISSION, message: "\(request.operation.name) '\(reserved)': "
                                + "the host keeps the plugins' saved state in '\(Self.hostFolder)'; a plugin saves its own with save_state")
        }
        do {
            return FilesOutcome(status: PB_OK, payload: try run(request))
        } catch let error as FileFacadeError {
            return FilesOutcome(status: Self.status(for: error.reason), message: error.description)
        } catch {
            return FilesOutcome(status: PB_ERR_IO, message: String(describing: error))
        }
    }

    private func run(_ request: FilesRequest) throws -> [UInt8] {
        let overwrite = request.flags & PB_FILES_OVERWRITE != 0
        let createFolders = request.flags & PB_FILES_CREATE_FOLDERS != 0
        switch request.operation {
        case .write:
            let target = try PathAdapter.location(forContainerPath: request.path)
            try facade.writeBytes(request.data, to: target.name, in: target.directory, overwrite: overwrite,
                                  createIntermediateDirectories: createFolders)
        case .read:
            let target = try PathAdapter.location(forContainerPath: request.path)
            return try facade.readBytes(target.name, in: target.directory, atMost: request.resultLimit)
        case .remove:
            let target = try PathAdapter.location(forContainerPath: request.path)
            try facade.delete(target.name, in: target.directory)
        case .rename:
            let target = try PathAdapter.location(forContainerPath: request.path)
            try facade.rename(target.name, in: target.directory, to: request.secondPath, overwrite: overwrite)
        case .move, .copy:
            let source = try PathAdapter.location(forContainerPath: request.path)
            let destination = try PathAdapter.location(forContainerPath: request.secondPath)
            if request.operation == .move {
                try facade.move(source.name, from: source.directory, to: destination.name, in: destination.directory,
                                overwrite: overwrite, createIntermediateDirectories: createFolders)
            } else {
                try facade.copy(source.name, from: source.directory, to: destination.name, in: destination.directory,
                                overwrite: overwrite, createIntermediateDirectories: createFolders)
            }
        case .changeExtension:
            let target = try PathAdapter.location(forContainerPath: request.path)
            let newName = try facade.changeExtension(of: target.name, in: target.directory, to: request.secondPath,
                                                     overwrite: overwrite)
            return Array(try PathAdapter.containerPath(for: FileLocation(directory: target.directory, name: newName)).utf8)
        case .list:
            let entries: [DirectoryEntry]
            if let directory = AppDirectory(relativePath: request.path) {
                entries = try facade.listContents(of: directory)
            } else {
                let target = try PathAdapter.location(forContainerPath: request.path)
                entries = try facade.listContents(of: target.directory, folder: target.name)
            }
            let shown = request.path == AppDirectory.library.relativePath ? entries.filter { $0.name != SavedStateStore.folder } : entries
            let objects = shown.map { ["name": $0.name, "kind": Self.kindName($0.kind)] }
            let listing = Array(JSONValue.array(objects.map { .object($0.mapValues(JSONValue.string)) }).text.utf8)
            guard listing.count <= request.resultLimit else {
                throw FileFacadeError(operation: .listContents, directory: nil, name: request.path,
                                      reason: .tooLarge(limit: request.resultLimit))
            }
            return listing
        case .attributes:
            let found: FileAttributes
            if let directory = AppDirectory(relativePath: request.path) {
                found = try facade.attributes(of: directory)
            } else {
                let target = try PathAdapter.location(forContainerPath: request.path)
                found = try facade.attributes(of: target.name, in: target.directory)
            }
            return FilesRecord(pb_file_attributes_t(
                struct_size: UInt32(MemoryLayout<pb_file_attributes_t>.size),
                kind: Self.kinds[found.kind] ?? PB_FILE_KIND_OTHER,
                size: found.size,
                permissions: UInt32(found.permissions.rawValue),
                owner_id: found.ownerID,
                modified_ns: Self.nanoseconds(found.modificationDate),
                created_ns: found.creationDate.map(Self.nanoseconds) ?? 0)).bytes
        case .exists:
            if let directory = AppDirectory(relativePath: request.path) { return [try exists(directory) ? 1 : 0] }
            let target = try PathAdapter.location(forContainerPath: request.path)
            return [try facade.exists(target.name, in: target.directory) ? 1 : 0]
        }
        return []
    }

    /// Whether the standard directory `directory` exists (the host makes them before any plugin runs).
    private func exists(_ directory: AppDirectory) throws(FileFacadeError) -> Bool {
        do {
            _ = try facade.attributes(of: directory)
            return true
        } catch where error.reason == .notFound {
            return false
        }
    }

    /// The container path of the folder where the host keeps the plugins' saved state
    /// (``SavedStateStore``): out of the files service's reach, or one plugin could read another's
    /// state, or forge it; and hidden from a listing of `Library`.
    static let hostFolder = AppDirectory.library.relativePath + "/" + SavedStateStore.folder

    /// The path of `request` that names the host's folder or a path in it, if one does: its
    /// path, its destination, or the name a rename or a change of extension gives. The facade
    /// takes one spelling of a path only (no `.`, `..`, `//` or symbolic link), and splits it on
    /// the bytes `/` and `.` as the kernel does, so the path is split on bytes too (a `/` followed
    /// by a combining mark is one Swift `Character`, and no `/` to `String`'s methods). Names are
    /// compared as a folder that ignores case compares them (``caseFolded(_:)``): a container on one
    /// would take "plugboard ſtate" for the host's folder.
    static func reservedPath(of request: FilesRequest) -> String? {
        let path = Array(request.path.utf8)
        var paths = [path]
        let folder = path.lastIndex(of: slash).map { Array(path[..<$0]) }
        switch request.operation {
        case .move, .copy:
            paths.append(Array(request.secondPath.utf8))
        case .rename:
            if let folder { paths.append(folder + [slash] + Array(request.secondPath.utf8)) }
        case .changeExtension where request.secondPath.isEmpty:
            // Without an extension, the new name is the old one up to its last dot.
            if let folder, let start = path.lastIndex(of: slash) {
                let leaf = path[(start + 1)...]
                paths.append(folder + [slash] + (leaf.lastIndex(of: dot).map { Array(leaf[..<$0]) } ?? Array(leaf)))
            }
        default:
            break
        }
        return paths.first { candidate in
            let components = candidate.split(separator: slash, maxSplits: 2, omittingEmptySubsequences: false)
            return components.count >= 2 && caseFolded(components[0]) == reservedFolded.library
                && caseFolded(components[1]) == reservedFolded.folder
        }.map { String(decoding: $0, as: UTF8.self) }
    }

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")
    /// The host folder's two names, case-folded.
    private static let reservedFolded = (library: caseFolded(ArraySlice(AppDirectory.library.relativePath.utf8)),
                                         folder: caseFolded(ArraySlice(SavedStateStore.folder.utf8)))

    /// The name `bytes` as a folder that ignores case (Linux's casefolding) may take it, as far as it
    /// can match an ASCII name: ASCII letters in lower case; the characters whose case folding gives
    /// ASCII letters as those (ſ, the Kelvin sign, the ligatures ﬅ and ﬆ); and without the default
    /// ignorable code points, which older kernels skip. Other characters are kept, so they match no
    /// ASCII name; bytes that are not UTF-8 match none either.
    private static func caseFolded(_ bytes: ArraySlice<UInt8>) -> String {
        var folded = ""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x41...0x5A: folded.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value) | 0x20))
            case 0x17F: folded += "s"
            case 0x212A: folded += "k"
            case 0xFB05, 0xFB06: folded += "st"
            default: if !scalar.properties.isDefaultIgnorableCodePoint { folded.unicodeScalars.append(scalar) }
            }
        }
        return folded
    }

    /// The most bytes one `write` takes, 1 GiB: the host copies them before the
    /// atomic write, so a size no buffer has is refused rather than allocated.
    static let maximumWriteBytes = 1 << 30
    /// The most bytes one `read` gives a plugin in this process, 1 GiB, as a `write` takes: a
    /// larger file is refused before its bytes past the limit are read.
    static let maximumReadBytes = 1 << 30

    /// Why `write` refuses `size` bytes for `path`, or nil when it takes them: at most `limit`
    /// (``maximumWriteBytes`` here, what one request carries from a worker, ``FilesAccess/writeLimit``).
    /// A C `size_t` above PTRDIFF_MAX (SIZE_MAX, say) arrives as a negative `Int`.
    static func sizeRefusal(path: String, size: Int, limit: Int = maximumWriteBytes) -> String? {
        guard size < 0 || size > limit else { return nil }
        let named = limit == maximumWriteBytes ? " (1 GiB)" : " (what one request from a worker carries)"
        return "write '\(path)': size is \(UInt(bitPattern: size)) bytes; the limit is \(limit)" + named
    }

    private static func status(for reason: FileFacadeError.Reason) -> pb_status_t {
        switch reason {
        case .invalidName, .escapesContainer, .symbolicLink, .outsideAppDirectories, .notAFileURL: PB_ERR_INVALID_PATH
        case .notFound: PB_ERR_NOT_FOUND
        case .destinationExists: PB_ERR_EXISTS
        case .permissionDenied: PB_ERR_PERMISSION
        case .notADirectory, .isADirectory, .notARegularFile, .directoryNotEmpty, .notUTF8Text: PB_ERR_INVALID_ARGUMENT
        case .noHomeDirectory, .systemError: PB_ERR_IO
        case .tooLarge: PB_ERR_INVALID_ARGUMENT
        }
    }

    private static func kindName(_ kind: FileKind) -> String {
        switch kind {
        case .file: "file"
        case .directory: "directory"
        case .symbolicLink: "symbolic-link"
        case .other: "other"
        }
    }

    private static let kinds: [FileKind: pb_file_kind_t] = [.file: PB_FILE_KIND_FILE, .directory: PB_FILE_KIND_DIRECTORY,
                                                            .symbolicLink: PB_FILE_KIND_SYMBOLIC_LINK, .other: PB_FILE_KIND_OTHER]

    /// Nanoseconds since the epoch; a time past what 64 bits hold (after the year 2262 or before
    /// 1677, which a plugin can give a file) is the nearest end, not a trap.
    private static func nanoseconds(_ date: Date) -> Int64 {
        let nanoseconds = (date.timeIntervalSince1970 * 1e9).rounded()
        return Int64(exactly: nanoseconds) ?? (nanoseconds.isNaN ? 0 : nanoseconds > 0 ? .max : .min)
    }
}
