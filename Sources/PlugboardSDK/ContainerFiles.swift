import CPlugboard

/// The host's files service (`services/files.h`): the application's sandboxed container.
///
/// Paths are container paths such as `"Documents/notes.txt"`. Every function is thread-safe;
/// a failure throws ``ContainerFilesError`` with the host's sentence naming the path and the cause.
/// (Sendable by hand: it holds the host's tables, valid and thread-safe for the life of the process.)
public struct ContainerFiles: @unchecked Sendable {
    let host: HostPointer
    let table: UnsafePointer<pb_files_t>

    /// Writes `bytes` to `path` atomically; `overwrite` replaces an existing file,
    /// `createFolders` creates missing folders.
    public func write(_ bytes: [UInt8], to path: String, overwrite: Bool = false, createFolders: Bool = false)
        throws(ContainerFilesError) {
        let flags = (overwrite ? PB_FILES_OVERWRITE : 0) | (createFolders ? PB_FILES_CREATE_FOLDERS : 0)
        try check(bytes.withUnsafeBytes { table.pointee.write?(host.table, path, $0.baseAddress, $0.count, flags) ?? PB_ERR_UNAVAILABLE })
    }

    /// Writes `text` as UTF-8; see ``write(_:to:overwrite:createFolders:)``.
    public func write(_ text: String, to path: String, overwrite: Bool = false, createFolders: Bool = false)
        throws(ContainerFilesError) {
        try write(Array(text.utf8), to: path, overwrite: overwrite, createFolders: createFolders)
    }

    /// The bytes of the file at `path`.
    public func read(_ path: String) throws(ContainerFilesError) -> [UInt8] {
        var buffer = pb_buffer_t()
        try check(table.pointee.read?(host.table, path, &buffer) ?? PB_ERR_UNAVAILABLE)
        defer { table.pointee.free_buffer?(host.table, &buffer) }
        return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.size))
    }

    /// Whether something exists at `path`.
    public func exists(_ path: String) throws(ContainerFilesError) -> Bool {
        var answer = false
        try check(table.pointee.exists?(host.table, path, &answer) ?? PB_ERR_UNAVAILABLE)
        return answer
    }

    /// Removes the file or the empty folder at `path`.
    public func remove(_ path: String) throws(ContainerFilesError) {
        try check(table.pointee.remove?(host.table, path) ?? PB_ERR_UNAVAILABLE)
    }

    /// Throws the host's explanation of the calling thread's last failure unless `status` is PB_OK.
    private func check(_ status: pb_status_t) throws(ContainerFilesError) {
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
