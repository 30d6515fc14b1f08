import CPlugboard

/// Where one library's files service runs: here, on the file facade, or in the
/// host, reached from a worker through the channel. Either way the plugin gets
/// a `pb_files_t` with the same behaviour.
enum FilesAccess: Sendable {
    /// The facade in this process.
    case local(FilesService)
    /// The host's files service, from a worker.
    case remote(RemoteFiles)

    /// A new table whose functions reach this access through the host table's context.
    func makeTable() -> UnsafeMutablePointer<pb_files_t> {
        switch self {
        case .local: FilesService.makeTable()
        case .remote: RemoteFilesTable.make()
        }
    }
}
