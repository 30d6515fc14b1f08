import CPlugboard
import PlugboardFiles
import PlugboardWorkerProtocol

/// The host's side of a worker's files service: each `files` request runs on a
/// files table of the host's own, bound to the worker's library, exactly as the
/// library's call would run in process, and its outcome goes back as a `serviceReply`.
struct WorkerFilesServer: @unchecked Sendable {
    /// The library's host table on this side (its files table on the host's facade).
    private let services: HostServicesTable

    /// A server for `library` on `facade`'s container, refusing what `gate` denies.
    init(library: String, facade: FileFacade, gate: ServiceGate) {
        let router = LogRouter()
        services = HostServicesTable(lifetime: LibraryLifetime(libraryPath: library, router: router), router: router,
                                     files: .local(FilesService(facade: facade)), gate: gate)
    }

    /// Runs one request and says how it went.
    func serve(_ operation: FilesOperation, path: String, secondPath: String, data: [UInt8], flags: UInt32) -> WorkerMessage {
        let host = UnsafePointer(services.table)
        guard let files = services.table.pointee.files?.pointee else {
            return .serviceReply(status: PB_ERR_UNAVAILABLE, payload: [], message: "this host offers no files service")
        }
        var payload: [UInt8] = []
        func buffer(_ call: (UnsafeMutablePointer<pb_buffer_t>) -> pb_status_t?) -> pb_status_t {
            var out = pb_buffer_t(data: nil, size: 0)
            let status = call(&out) ?? PB_ERR_UNAVAILABLE
            if status == PB_OK, let bytes = out.data {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: out.size))
                files.free_buffer?(host, &out)
            }
            return status
        }
        let status: pb_status_t = path.withCString { path8 in
            secondPath.withCString { second8 in
                switch operation {
                case .write:
                    data.withUnsafeBytes { files.write?(host, path8, $0.baseAddress, data.count, flags) } ?? PB_ERR_UNAVAILABLE
                case .read:
                    buffer { files.read?(host, path8, $0) }
                case .remove:
                    files.remove?(host, path8) ?? PB_ERR_UNAVAILABLE
                case .rename:
                    files.rename?(host, path8, second8, flags) ?? PB_ERR_UNAVAILABLE
                case .move:
                    files.move?(host, path8, second8, flags) ?? PB_ERR_UNAVAILABLE
                case .copy:
                    files.copy?(host, path8, second8, flags) ?? PB_ERR_UNAVAILABLE
                case .changeExtension:
                    buffer { files.change_extension?(host, path8, second8, flags, $0) }
                case .list:
                    buffer { files.list?(host, path8, $0) }
                case .attributes:
                    attributes(files, host, path8, into: &payload)
                case .exists:
                    exists(files, host, path8, into: &payload)
                }
            }
        }
        return .serviceReply(status: status, payload: payload, message: status == PB_OK ? "" : lastError(files, host))
    }

    private func attributes(_ files: pb_files_t, _ host: UnsafePointer<pb_host_t>, _ path: UnsafePointer<CChar>,
                            into payload: inout [UInt8]) -> pb_status_t {
        var out = pb_file_attributes_t()
        out.struct_size = UInt32(MemoryLayout<pb_file_attributes_t>.size)
        let status = files.attributes?(host, path, &out) ?? PB_ERR_UNAVAILABLE
        if status == PB_OK { payload = FilesRecord(out).bytes }
        return status
    }

    private func exists(_ files: pb_files_t, _ host: UnsafePointer<pb_host_t>, _ path: UnsafePointer<CChar>,
                        into payload: inout [UInt8]) -> pb_status_t {
        var found = false
        let status = files.exists?(host, path, &found) ?? PB_ERR_UNAVAILABLE
        if status == PB_OK { payload = [found ? 1 : 0] }
        return status
    }

    /// The message of the call that just failed on this thread.
    private func lastError(_ files: pb_files_t, _ host: UnsafePointer<pb_host_t>) -> String {
        let length = files.last_error?(host, nil, 0) ?? 0
        var text = [CChar](repeating: 0, count: length + 1)
        _ = files.last_error?(host, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
