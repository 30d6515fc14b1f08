import CPlugboard
import Glibc

/// The `pb_files_t` every library receives, in process and in a worker alike: each function
/// checks its C arguments, makes one ``FilesRequest`` for the library's ``FilesAccess`` (found
/// through the host table's context) and writes the ``FilesOutcome`` back (status, output
/// buffers, attributes, `last_error`). Refused after the library's end (deinit, or init
/// returned false) with `PB_ERR_WRONG_STATE`.
enum FilesTable {
    /// The one table, shared by every library (its functions find the library by their `host`); never
    /// freed, never written after it is made.
    nonisolated(unsafe) static let shared: UnsafePointer<pb_files_t> = {
        let table = UnsafeMutablePointer<pb_files_t>.allocate(capacity: 1)
        table.initialize(to: pb_files_t(
            struct_size: UInt32(MemoryLayout<pb_files_t>.size),
            write: write, read: read, free_buffer: freeBuffer, remove: remove, rename: rename, move: move,
            copy: copy, change_extension: changeExtension, list: list, attributes: attributes, exists: exists,
            last_error: lastError))
        return UnsafePointer(table)
    }()

    /// Performs `request` for the library behind `host`; `use` reads a successful call's payload.
    private static func perform(_ host: UnsafePointer<pb_host>?, _ request: FilesRequest,
                                _ use: (_ payload: [UInt8]) -> pb_status_t = { _ in PB_OK }) -> pb_status_t {
        guard let context = context(host), let files = context.files else { return PB_ERR_UNAVAILABLE }
        guard context.lifetime.admits("a files function") else { return PB_ERR_WRONG_STATE }
        let outcome = files.perform(request, gate: context.gate)
        return outcome.status == PB_OK ? use(outcome.payload) : outcome.status
    }

    /// Refuses a call whose C arguments are wrong before anything is asked, remembering `message` for `last_error`.
    private static func refuse(_ host: UnsafePointer<pb_host>?, _ message: String) -> pb_status_t {
        guard let context = context(host), let files = context.files else { return PB_ERR_UNAVAILABLE }
        guard context.lifetime.admits("a files function") else { return PB_ERR_WRONG_STATE }
        files.remember(message)
        return PB_ERR_INVALID_ARGUMENT
    }

    private static func context(_ host: UnsafePointer<pb_host>?) -> HostServicesTable.Context? {
        host?.pointee.host_data.map { Unmanaged<HostServicesTable.Context>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Copies `bytes` into a malloc'd, NUL-terminated buffer the plugin frees with `free_buffer`.
    private static func fill(_ out: UnsafeMutablePointer<pb_buffer_t>, _ bytes: [UInt8]) -> pb_status_t {
        guard let data = malloc(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) else { return PB_ERR_IO }
        _ = UnsafeMutableBufferPointer(start: data, count: bytes.count).initialize(from: bytes)
        data[bytes.count] = 0
        out.pointee = pb_buffer_t(data: data, size: bytes.count)
        return PB_OK
    }

    private static func text(_ pointer: UnsafePointer<CChar>) -> String { String(cString: pointer) }

    private static let write: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, UInt32) -> pb_status_t = {
        host, path, data, size, flags in
        guard let path else { return refuse(host, "the path is NULL") }
        // A size that cannot be a buffer is refused before its bytes are copied.
        if let refusal = FilesService.sizeRefusal(path: text(path), size: size) { return refuse(host, refusal) }
        guard data != nil || size == 0 else { return refuse(host, "data is NULL but size is \(size)") }
        let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
        return perform(host, FilesRequest(operation: .write, path: text(path), data: bytes, flags: flags))
    }

    private static let read: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        guard let path else { return refuse(host, "the path is NULL") }
        guard let out else { return refuse(host, "the output buffer is NULL") }
        return perform(host, FilesRequest(operation: .read, path: text(path))) { fill(out, $0) }
    }

    /// `free_buffer`: frees a buffer a files function filled (malloc'd) and empties it.
    private static let freeBuffer: @convention(c) (UnsafePointer<pb_host>?, UnsafeMutablePointer<pb_buffer_t>?) -> Void = {
        _, buffer in
        guard let buffer else { return }
        free(buffer.pointee.data)
        buffer.pointee = pb_buffer_t(data: nil, size: 0)
    }

    private static let remove: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?) -> pb_status_t = {
        host, path in
        guard let path else { return refuse(host, "the path is NULL") }
        return perform(host, FilesRequest(operation: .remove, path: text(path)))
    }

    private static let rename: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, path, newName, flags in
        guard let path else { return refuse(host, "the path is NULL") }
        guard let newName else { return refuse(host, "the new name is NULL") }
        return perform(host, FilesRequest(operation: .rename, path: text(path), secondPath: text(newName), flags: flags))
    }

    private static let move: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        guard let from else { return refuse(host, "the source path is NULL") }
        guard let to else { return refuse(host, "the destination path is NULL") }
        return perform(host, FilesRequest(operation: .move, path: text(from), secondPath: text(to), flags: flags))
    }

    private static let copy: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        guard let from else { return refuse(host, "the source path is NULL") }
        guard let to else { return refuse(host, "the destination path is NULL") }
        return perform(host, FilesRequest(operation: .copy, path: text(from), secondPath: text(to), flags: flags))
    }

    private static let changeExtension: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, fileExtension, flags, newPath in
        guard let path else { return refuse(host, "the path is NULL") }
        guard let fileExtension else { return refuse(host, "the extension is NULL") }
        return perform(host, FilesRequest(operation: .changeExtension, path: text(path), secondPath: text(fileExtension),
                                          flags: flags)) { payload in
            newPath.map { fill($0, payload) } ?? PB_OK
        }
    }

    private static let list: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        guard let path else { return refuse(host, "the path is NULL") }
        guard let out else { return refuse(host, "the output buffer is NULL") }
        return perform(host, FilesRequest(operation: .list, path: text(path))) { fill(out, $0) }
    }

    private static let attributes: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_file_attributes_t>?) -> pb_status_t = {
        host, path, out in
        guard let path else { return refuse(host, "the path is NULL") }
        guard let out else { return refuse(host, "the attributes pointer is NULL") }
        let size = Int(out.pointee.struct_size)
        guard size >= MemoryLayout<pb_file_attributes_t>.size else {
            return refuse(host, "pb_file_attributes_t.struct_size is \(size); at least \(MemoryLayout<pb_file_attributes_t>.size) is needed")
        }
        return perform(host, FilesRequest(operation: .attributes, path: text(path))) { payload in
            guard let record = FilesRecord(payload) else { return PB_ERR_IO }
            out.pointee = record.attributes
            return PB_OK
        }
    }

    private static let exists: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<Bool>?) -> pb_status_t = {
        host, path, out in
        guard let path else { return refuse(host, "the path is NULL") }
        guard let out else { return refuse(host, "the result pointer is NULL") }
        return perform(host, FilesRequest(operation: .exists, path: text(path))) { payload in
            out.pointee = payload.first == 1
            return PB_OK
        }
    }

    private static let lastError: @convention(c) (UnsafePointer<pb_host>?, UnsafeMutablePointer<CChar>?, Int) -> Int = {
        host, buffer, capacity in
        let message = context(host)?.files?.lastError ?? "this host offers no files service"
        let bytes = Array(message.utf8)
        if let buffer, capacity > 0 {
            let count = min(bytes.count, capacity - 1)
            for index in 0..<count { buffer[index] = CChar(bitPattern: bytes[index]) }
            buffer[count] = 0
        }
        return bytes.count
    }
}
