import CPlugboard

/// The host's files service (`services/files.h`): the application's sandboxed container.
///
/// Paths are container paths such as `"Documents/notes.txt"`. Every function is thread-safe;
/// a failure throws ``ContainerFilesError`` with the host's sentence naming the path and the cause.
/// `overwrite` replaces an existing destination (without it, one is an error); `createFolders`
/// creates the destination's missing folders (the way to make a folder: write, move or copy into it).
/// (Sendable by hand: it holds the host's tables, valid and thread-safe for the life of the process.)
public struct ContainerFiles: @unchecked Sendable {
    let host: HostPointer
    let table: UnsafePointer<pb_files_t>

    /// Writes `bytes` to `path` atomically.
    public func write(_ bytes: [UInt8], to path: String, overwrite: Bool = false, createFolders: Bool = false)
        throws(ContainerFilesError) {
        let flags = Self.flags(overwrite: overwrite, createFolders: createFolders)
        try check(bytes.withUnsafeBytes { table.pointee.write?(host.table, path, $0.baseAddress, $0.count, flags) })
    }

    /// Writes `text` as UTF-8; see ``write(_:to:overwrite:createFolders:)``.
    public func write(_ text: String, to path: String, overwrite: Bool = false, createFolders: Bool = false)
        throws(ContainerFilesError) {
        try write(Array(text.utf8), to: path, overwrite: overwrite, createFolders: createFolders)
    }

    /// The bytes of the file at `path`.
    public func read(_ path: String) throws(ContainerFilesError) -> [UInt8] {
        try filledBuffer { table.pointee.read?(host.table, path, $0) }
    }

    /// Whether something exists at `path`.
    public func exists(_ path: String) throws(ContainerFilesError) -> Bool {
        var answer = false
        try check(table.pointee.exists?(host.table, path, &answer))
        return answer
    }

    /// Removes the file, the link or the empty folder at `path`.
    public func remove(_ path: String) throws(ContainerFilesError) {
        try check(table.pointee.remove?(host.table, path))
    }

    /// What a directory (`"Documents"`) or a folder in one (`"Documents/notes"`) holds, sorted by name.
    public func list(_ path: String) throws(ContainerFilesError) -> [ContainerEntry] {
        let json = try filledBuffer { table.pointee.list?(host.table, path, $0) }
        guard let entries = ContainerEntry.entries(listingJSON: json) else {
            throw ContainerFilesError(status: PB_ERR_IO, message: "list '\(path)': the host's listing is not the documented JSON")
        }
        return entries
    }

    /// The attributes of what `path` names (a final symbolic link is not followed).
    public func attributes(of path: String) throws(ContainerFilesError) -> ContainerFileAttributes {
        var record = pb_file_attributes_t()
        record.struct_size = UInt32(MemoryLayout<pb_file_attributes_t>.size)
        try check(table.pointee.attributes?(host.table, path, &record))
        return ContainerFileAttributes(record)
    }

    /// Renames `path` within its folder to `newName`, one path component.
    public func rename(_ path: String, to newName: String, overwrite: Bool = false) throws(ContainerFilesError) {
        try check(table.pointee.rename?(host.table, path, newName, Self.flags(overwrite: overwrite, createFolders: false)))
    }

    /// Moves `source` to `destination`, possibly into another directory.
    public func move(_ source: String, to destination: String, overwrite: Bool = false, createFolders: Bool = false)
        throws(ContainerFilesError) {
        let flags = Self.flags(overwrite: overwrite, createFolders: createFolders)
        try check(table.pointee.move?(host.table, source, destination, flags))
    }

    /// Copies the file `source` to `destination` atomically, like ``write(_:to:overwrite:createFolders:)``.
    public func copy(_ source: String, to destination: String, overwrite: Bool = false, createFolders: Bool = false)
        throws(ContainerFilesError) {
        let flags = Self.flags(overwrite: overwrite, createFolders: createFolders)
        try check(table.pointee.copy?(host.table, source, destination, flags))
    }

    /// Changes the extension of `path` after its last dot to `newExtension` ("" removes it) and
    /// returns the new container path.
    public func changeExtension(of path: String, to newExtension: String, overwrite: Bool = false)
        throws(ContainerFilesError) -> String {
        let flags = Self.flags(overwrite: overwrite, createFolders: false)
        let newPath = try filledBuffer { table.pointee.change_extension?(host.table, path, newExtension, flags, $0) }
        return String(decoding: newPath, as: UTF8.self)
    }

    /// The `PB_FILES_*` flags.
    private static func flags(overwrite: Bool, createFolders: Bool) -> UInt32 {
        (overwrite ? PB_FILES_OVERWRITE : 0) | (createFolders ? PB_FILES_CREATE_FOLDERS : 0)
    }

    /// The bytes of a buffer that `call` has the host fill, released before returning.
    private func filledBuffer(_ call: (UnsafeMutablePointer<pb_buffer_t>) -> pb_status_t?) throws(ContainerFilesError) -> [UInt8] {
        var buffer = pb_buffer_t()
        defer { table.pointee.free_buffer?(host.table, &buffer) }
        try check(call(&buffer))
        return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.size))
    }

    /// Throws the host's explanation of the calling thread's last failure unless `status` is PB_OK;
    /// a nil status (a slot the host left NULL) is PB_ERR_UNAVAILABLE.
    private func check(_ status: pb_status_t?) throws(ContainerFilesError) {
        let status = status ?? PB_ERR_UNAVAILABLE
        guard status != PB_OK else { return }
        var sentence = [CChar](repeating: 0, count: 1024)
        let length = sentence.withUnsafeMutableBufferPointer {
            table.pointee.last_error?(host.table, $0.baseAddress, $0.count) ?? 0
        }
        let text = String(decoding: sentence.prefix(min(length, sentence.count - 1)).map { UInt8(bitPattern: $0) },
                          as: UTF8.self)
        throw ContainerFilesError(status: status, message: text)
    }
}
