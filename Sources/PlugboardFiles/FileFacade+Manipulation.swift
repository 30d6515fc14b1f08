import Glibc
import SystemPackage

/// Creating, reading, and rearranging files.
///
/// Every operation that could replace something takes `overwrite`; when it
/// is false an existing destination is refused with `.destinationExists`.
extension FileFacade {
    /// Atomically writes `bytes` to `name`: readers see the old file or the
    /// new one, never a part. Missing folders are created only when
    /// `createIntermediateDirectories` is true.
    public func writeBytes(
        _ bytes: [UInt8], to name: String, in directory: AppDirectory, overwrite: Bool = false,
        createIntermediateDirectories: Bool = false
    ) throws(FileFacadeError) {
        let context = ErrorContext(operation: .write, directory: directory, name: name)
        let validName = try SandboxedName(validating: name, context)
        let parent = try openParent(
            of: validName, in: directory, creatingFolders: createIntermediateDirectories, context)
        try context.attempt { () throws(Errno) in
            try AtomicWrite.write(into: parent, as: validName.leaf, replacing: overwrite) {
                file throws(Errno) in try file.writeAll(bytes)
            }
        }
    }

    /// Atomically writes `text` as UTF-8 to `name`; see `writeBytes`.
    public func writeText(
        _ text: String, to name: String, in directory: AppDirectory, overwrite: Bool = false,
        createIntermediateDirectories: Bool = false
    ) throws(FileFacadeError) {
        try writeBytes(
            Array(text.utf8), to: name, in: directory, overwrite: overwrite,
            createIntermediateDirectories: createIntermediateDirectories)
    }

    /// The contents of the regular file `name`; a directory, FIFO or device is refused, and so
    /// is a file of more than `limit` bytes (`.tooLarge`), whose bytes past the limit are not read.
    /// The file is held whole in memory: ``readChunks(_:in:_:)`` reads one of any size.
    public func readBytes(_ name: String, in directory: AppDirectory, atMost limit: Int = .max) throws(FileFacadeError) -> [UInt8] {
        var contents: [UInt8] = []
        var tooLarge = false
        try readChunks(name, in: directory) { chunk in
            tooLarge = chunk.count > limit - contents.count
            if !tooLarge { contents.append(contentsOf: chunk) }
            return !tooLarge
        }
        if tooLarge {
            throw FileFacadeError(operation: .read, directory: directory, name: name, reason: .tooLarge(limit: limit))
        }
        return contents
    }

    /// Hands the contents of the regular file `name` to `body` in order, a chunk of at most 256 KiB
    /// at a time, so that a file of any size is read in bounded memory; a directory, FIFO or device
    /// is refused. Reading stops when `body` returns false. An error while reading comes after the
    /// chunks read before it were handed over.
    public func readChunks(_ name: String, in directory: AppDirectory, _ body: ([UInt8]) -> Bool) throws(FileFacadeError) {
        let context = ErrorContext(operation: .read, directory: directory, name: name)
        let validName = try SandboxedName(validating: name, context)
        let parent = try openParent(of: validName, in: directory, context)
        let file = try openRegularFile(validName.leaf, in: parent, context)
        try context.attempt { () throws(Errno) in try file.readChunks(body) }
    }

    /// The contents of the regular file `name`; refused with `.notUTF8Text`
    /// rather than silently repaired when the bytes are not UTF-8.
    public func readText(_ name: String, in directory: AppDirectory) throws(FileFacadeError) -> String {
        let bytes = try readBytes(name, in: directory)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FileFacadeError(operation: .read, directory: directory, name: name, reason: .notUTF8Text)
        }
        return text
    }

    /// Removes a file, a symbolic link (never its target) or an empty
    /// directory; a directory with contents is refused with `.directoryNotEmpty`.
    public func delete(_ name: String, in directory: AppDirectory) throws(FileFacadeError) {
        let context = ErrorContext(operation: .delete, directory: directory, name: name)
        let validName = try SandboxedName(validating: name, context)
        let parent = try openParent(of: validName, in: directory, context)
        try context.attempt { () throws(Errno) in
            do throws(Errno) {
                try parent.unlink(validName.leaf)
            } catch .isDirectory {
                try parent.unlink(validName.leaf, isDirectory: true)
            }
        }
    }

    /// Gives `name` the new last component `newName` (a single component, no
    /// '/') in the same folder, atomically. A folder is refused when an entry
    /// inside it would then pass the `ContainerPathLimits`.
    public func rename(
        _ name: String, in directory: AppDirectory, to newName: String, overwrite: Bool = false
    ) throws(FileFacadeError) {
        let context = ErrorContext(operation: .rename, directory: directory, name: name)
        let newContext = ErrorContext(operation: .rename, directory: directory, name: newName)
        let validName = try SandboxedName(validating: name, context)
        let validNewName = try validName.replacingLeaf(with: newName, newContext)
        let parent = try openParent(of: validName, in: directory, context)
        try renameEntry(
            validName.leaf, in: parent, context, to: validNewName, in: directory, parent, newContext,
            overwrite: overwrite)
    }

    /// Moves `name` to `newName` in `destination` with one atomic rename
    /// (files and directories alike). A folder is refused when an entry inside
    /// it would then pass the `ContainerPathLimits`.
    public func move(
        _ name: String, from source: AppDirectory, to newName: String, in destination: AppDirectory,
        overwrite: Bool = false, createIntermediateDirectories: Bool = false
    ) throws(FileFacadeError) {
        let context = ErrorContext(operation: .move, directory: source, name: name)
        let newContext = ErrorContext(operation: .move, directory: destination, name: newName)
        let validName = try SandboxedName(validating: name, context)
        let validNewName = try SandboxedName(validating: newName, newContext)
        let sourceParent = try openParent(of: validName, in: source, context)
        let destinationParent = try openParent(
            of: validNewName, in: destination, creatingFolders: createIntermediateDirectories, newContext)
        try renameEntry(
            validName.leaf, in: sourceParent, context, to: validNewName, in: destination, destinationParent,
            newContext, overwrite: overwrite)
    }

    /// Copies the regular file `name` to `newName` in `destination`; the
    /// copy appears atomically and keeps the source's permission bits.
    public func copy(
        _ name: String, from source: AppDirectory, to newName: String, in destination: AppDirectory,
        overwrite: Bool = false, createIntermediateDirectories: Bool = false
    ) throws(FileFacadeError) {
        let context = ErrorContext(operation: .copy, directory: source, name: name)
        let newContext = ErrorContext(operation: .copy, directory: destination, name: newName)
        let validName = try SandboxedName(validating: name, context)
        let validNewName = try SandboxedName(validating: newName, newContext)
        let sourceParent = try openParent(of: validName, in: source, context)
        let sourceFile = try openRegularFile(validName.leaf, in: sourceParent, context)
        let permissions = try context.attempt { () throws(Errno) in try sourceFile.status().st_mode & 0o7777 }
        let destinationParent = try openParent(
            of: validNewName, in: destination, creatingFolders: createIntermediateDirectories, newContext)
        try newContext.attempt { () throws(Errno) in
            try AtomicWrite.write(into: destinationParent, as: validNewName.leaf, replacing: overwrite) {
                file throws(Errno) in
                try file.setPermissions(permissions)
                try file.copyContents(of: sourceFile)
            }
        }
    }

    /// Renames `name` so its last component carries `newExtension` (without
    /// the dot; empty removes the extension) and returns the new name.
    ///
    /// Only the last dot counts, and a leading dot is not an extension:
    /// "a.tar.gz" → "a.tar.zip", ".profile" → ".profile.bak". When the name
    /// does not change, nothing is renamed (but the file must exist).
    public func changeExtension(
        of name: String, in directory: AppDirectory, to newExtension: String, overwrite: Bool = false
    ) throws(FileFacadeError) -> String {
        let context = ErrorContext(operation: .changeExtension, directory: directory, name: name)
        let validName = try SandboxedName(validating: name, context)
        let newLeaf = try FileNameExtension.replacing(
            in: validName.leaf, with: newExtension,
            ErrorContext(operation: .changeExtension, directory: directory, name: newExtension))
        let newName = (validName.folders + [newLeaf]).joined(separator: "/")
        let newContext = ErrorContext(operation: .changeExtension, directory: directory, name: newName)
        let validNewName = try validName.replacingLeaf(with: newLeaf, newContext)
        let parent = try openParent(of: validName, in: directory, context)
        if validNewName.leaf == validName.leaf {
            _ = try context.attempt { () throws(Errno) in try parent.status(of: validName.leaf) }
        } else {
            try renameEntry(
                validName.leaf, in: parent, context, to: validNewName, in: directory, parent, newContext,
                overwrite: overwrite)
        }
        return newName
    }

    /// Opens `leaf` for reading, refusing symbolic links, directories and
    /// special files (opened non-blocking so a FIFO cannot hang the caller).
    private func openRegularFile(_ leaf: String, in parent: DirectoryDescriptor, _ context: ErrorContext)
        throws(FileFacadeError) -> OpenFile
    {
        let file = try context.attempt { () throws(Errno) in
            try parent.openFile(leaf, flags: O_RDONLY | O_NONBLOCK)
        }
        let kind = try context.attempt { () throws(Errno) in FileKind(mode: try file.status().st_mode) }
        switch kind {
        case .file: return file
        case .directory: throw context.error(.isADirectory)
        case .symbolicLink, .other: throw context.error(.notARegularFile)
        }
    }

    /// Renames with `renameat2`, blaming a failure on the side it concerns.
    private func renameEntry(
        _ leaf: String, in parent: DirectoryDescriptor, _ context: ErrorContext,
        to newName: SandboxedName, in destination: AppDirectory, _ newParent: DirectoryDescriptor,
        _ newContext: ErrorContext, overwrite: Bool
    ) throws(FileFacadeError) {
        try requireTreeFits(leaf, in: parent, context, as: newName, in: destination, newContext)
        do {
            try parent.rename(leaf, to: newParent, as: newName.leaf, replacing: overwrite)
        } catch {
            let concernsDestination = [.fileExists, .directoryNotEmpty, .isDirectory, .notDirectory]
                .contains(error)
            throw (concernsDestination ? newContext : context).error(error)
        }
    }

    /// Throws unless every entry inside `leaf` of `parent`, when it is a folder, stays within the
    /// container path limits once the folder is `newName` in `destination`: a rename or a move
    /// carries the folder's whole tree, and a name past the limits could be reached by no later
    /// call, nor its tree cleaned up. Nothing to check for anything else (a file, a link).
    private func requireTreeFits(
        _ leaf: String, in parent: DirectoryDescriptor, _ context: ErrorContext,
        as newName: SandboxedName, in destination: AppDirectory, _ newContext: ErrorContext
    ) throws(FileFacadeError) {
        let folder: DirectoryDescriptor
        do {
            folder = try parent.openSubdirectory(leaf)
        } catch {
            return  // Not a folder; or not there, which the rename reports.
        }
        // An entry directly inside the folder passes through the folders before it and the folder.
        let folders = destination.components.count + newName.components.count
        let bytes = destination.relativePath.utf8.count + 1 + newName.components.joined(separator: "/").utf8.count
        let outside = try context.attempt { () throws(Errno) in
            try folder.firstEntryPast(depth: ContainerPathLimits.folderDepth - folders + 1,
                                      bytes: ContainerPathLimits.pathBytes - bytes)
        }
        guard let outside else { return }
        let reason: FileFacadeError.InvalidNameReason = folders - 1 + outside.depth > ContainerPathLimits.folderDepth
            ? .tooDeep(folders: folders - 1 + outside.depth) : .tooLong(bytes: bytes + outside.bytes)
        throw newContext.error(.invalidName(reason))
    }
}
