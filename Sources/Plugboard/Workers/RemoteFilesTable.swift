import CPlugboard
import Glibc
import PlugboardWorkerProtocol

/// The `pb_files_t` a plugin in a worker receives: every function a `files`
/// request to the host (``RemoteFiles``), its reply written back as the
/// in-process table would (status, output buffers, attributes, `last_error`).
enum RemoteFilesTable {
    /// A newly allocated table (never freed, like the host table it hangs from).
    static func make() -> UnsafeMutablePointer<pb_files_t> {
        let table = UnsafeMutablePointer<pb_files_t>.allocate(capacity: 1)
        table.initialize(to: pb_files_t(
            struct_size: UInt32(MemoryLayout<pb_files_t>.size),
            write: write, read: read, free_buffer: FilesService.freeBuffer, remove: remove, rename: rename, move: move,
            copy: copy, change_extension: changeExtension, list: list, attributes: attributes, exists: exists,
            last_error: lastError))
        return table
    }

    /// Forwards one call for the library behind `host`; refused after its end, like in process.
    private static func forward(_ host: UnsafePointer<pb_host>?, _ operation: FilesOperation,
                                _ path: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>? = nil,
                                data: [UInt8] = [], flags: UInt32 = 0,
                                _ use: (_ payload: [UInt8]) -> pb_status_t = { _ in PB_OK }) -> pb_status_t {
        guard let context = context(host), case .remote(let files)? = context.files else { return PB_ERR_UNAVAILABLE }
        guard context.lifetime.admits("a files function") else { return PB_ERR_WRONG_STATE }
        guard let path else { return refuse(host, "the path is NULL") }
        let reply = files.call(operation, path: String(cString: path), secondPath: second.map { String(cString: $0) } ?? "",
                               data: data, flags: flags)
        return reply.status == PB_OK ? use(reply.payload) : reply.status
    }

    /// Refuses a call whose arguments are wrong before anything is sent, with the
    /// message the in-process table gives, for `last_error`.
    private static func refuse(_ host: UnsafePointer<pb_host>?, _ message: String) -> pb_status_t {
        if case .remote(let files)? = context(host)?.files { files.refuse(message) }
        return PB_ERR_INVALID_ARGUMENT
    }

    private static func context(_ host: UnsafePointer<pb_host>?) -> HostServicesTable.Context? {
        host?.pointee.host_data.map { Unmanaged<HostServicesTable.Context>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Copies `bytes` into a malloc'd, NUL-terminated buffer the plugin frees with `free_buffer`.
    private static func fill(_ out: UnsafeMutablePointer<pb_buffer_t>?, _ bytes: [UInt8],
                             _ host: UnsafePointer<pb_host>?) -> pb_status_t {
        guard let out else { return refuse(host, "the output buffer is NULL") }
        guard let data = malloc(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) else { return PB_ERR_IO }
        _ = UnsafeMutableBufferPointer(start: data, count: bytes.count).initialize(from: bytes)
        data[bytes.count] = 0
        out.pointee = pb_buffer_t(data: data, size: bytes.count)
        return PB_OK
    }

    private static let write: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, UInt32) -> pb_status_t = {
        host, path, data, size, flags in
        // A size that cannot be a buffer is refused here, with the host's message: its bytes cannot be sent.
        if let path, let refusal = FilesService.sizeRefusal(path: String(cString: path), size: size) {
            return refuse(host, refusal)
        }
        guard data != nil || size == 0 else { return refuse(host, "data is NULL but size is \(size)") }
        let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
        return forward(host, .write, path, data: bytes, flags: flags)
    }

    private static let read: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        forward(host, .read, path) { fill(out, $0, host) }
    }

    private static let remove: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?) -> pb_status_t = {
        host, path in
        forward(host, .remove, path)
    }

    private static let rename: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, path, newName, flags in
        newName == nil ? refuse(host, "the new name is NULL") : forward(host, .rename, path, newName, flags: flags)
    }

    private static let move: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        to == nil ? refuse(host, "the destination path is NULL") : forward(host, .move, from, to, flags: flags)
    }

    private static let copy: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        to == nil ? refuse(host, "the destination path is NULL") : forward(host, .copy, from, to, flags: flags)
    }

    private static let changeExtension: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, fileExtension, flags, newPath in
        guard fileExtension != nil else { return refuse(host, "the extension is NULL") }
        return forward(host, .changeExtension, path, fileExtension, flags: flags) { payload in
            newPath == nil ? PB_OK : fill(newPath, payload, host)
        }
    }

    private static let list: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        forward(host, .list, path) { fill(out, $0, host) }
    }

    private static let attributes: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_file_attributes_t>?) -> pb_status_t = {
        host, path, out in
        guard let out else { return refuse(host, "the attributes pointer is NULL") }
        let size = Int(out.pointee.struct_size)
        guard size >= MemoryLayout<pb_file_attributes_t>.size else {
            return refuse(host, "pb_file_attributes_t.struct_size is \(size); at least \(MemoryLayout<pb_file_attributes_t>.size) is needed")
        }
        return forward(host, .attributes, path) { payload in
            guard let record = FilesRecord(payload) else { return PB_ERR_IO }
            out.pointee = record.attributes
            return PB_OK
        }
    }

    private static let exists: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<Bool>?) -> pb_status_t = {
        host, path, out in
        guard let out else { return refuse(host, "the result pointer is NULL") }
        return forward(host, .exists, path) { payload in
            out.pointee = payload.first == 1
            return PB_OK
        }
    }

    private static let lastError: @convention(c) (UnsafePointer<pb_host>?, UnsafeMutablePointer<CChar>?, Int) -> Int = {
        host, buffer, capacity in
        guard case .remote(let files)? = context(host)?.files else { return 0 }
        let bytes = Array(files.lastError.utf8)
        if let buffer, capacity > 0 {
            let count = min(bytes.count, capacity - 1)
            for index in 0..<count { buffer[index] = CChar(bitPattern: bytes[index]) }
            buffer[count] = 0
        }
        return bytes.count
    }
}
