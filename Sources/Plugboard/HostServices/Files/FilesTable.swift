import CPlugboard
import Glibc
import PlugboardWorkerProtocol

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

    /// Why a call's C arguments were refused before anything was asked: its status and the sentence for `last_error`.
    private struct Refusal: Error {
        let status: pb_status_t
        let message: String
    }

    /// Makes the call's request from its C arguments (`request`, which throws a ``Refusal`` for
    /// a wrong one), performs it for the library behind `host`, and lets `use` read a successful
    /// call's payload. A refusal is remembered for `last_error`.
    private static func call(_ host: UnsafePointer<pb_host>?, _ request: () throws(Refusal) -> FilesRequest,
                             use: (_ payload: [UInt8]) -> pb_status_t = { _ in PB_OK }) -> pb_status_t {
        guard let context = context(host), let files = context.files else { return PB_ERR_UNAVAILABLE }
        guard context.lifetime.admits("a files function") else { return PB_ERR_WRONG_STATE }
        let outcome: FilesOutcome
        do {
            outcome = files.perform(try request(), gate: context.gate)
        } catch {
            files.remember(error.message)
            return error.status
        }
        return outcome.status == PB_OK ? use(outcome.payload) : outcome.status
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

    /// The C text `what` (a path, a new name, an extension) at `pointer`: NULL is an invalid
    /// argument, and bytes that are not UTF-8 an invalid path (repaired, they would name another file).
    private static func text(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(Refusal) -> String {
        guard let pointer else { throw Refusal(status: PB_ERR_INVALID_ARGUMENT, message: "\(what) is NULL") }
        guard let text = String(validatingCString: pointer) else {
            let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
            let shown = String(decoding: bytes, as: UTF8.self)
            throw Refusal(status: PB_ERR_INVALID_PATH, message: "\(what) '\(shown)' is not UTF-8; container paths are UTF-8 text")
        }
        return text
    }

    /// A call of `operation` on `path` whose payload (a file's bytes, a listing) fills the plugin's buffer `out`.
    private static func filling(_ out: UnsafeMutablePointer<pb_buffer_t>?, _ host: UnsafePointer<pb_host>?,
                                _ operation: FilesOperation, _ path: UnsafePointer<CChar>?) -> pb_status_t {
        var buffer: UnsafeMutablePointer<pb_buffer_t>?
        return call(host) { () throws(Refusal) in
            let request = FilesRequest(operation: operation, path: try text(path, "the path"))
            buffer = try output(out, "the output buffer")
            return request
        } use: { payload in
            buffer.map { fill($0, payload) } ?? PB_ERR_INVALID_ARGUMENT
        }
    }

    /// Refuses a NULL output pointer, `what`.
    private static func output<T>(_ pointer: UnsafeMutablePointer<T>?, _ what: String) throws(Refusal) -> UnsafeMutablePointer<T> {
        guard let pointer else { throw Refusal(status: PB_ERR_INVALID_ARGUMENT, message: "\(what) is NULL") }
        return pointer
    }

    private static let write: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, UInt32) -> pb_status_t = {
        host, path, data, size, flags in
        call(host) { () throws(Refusal) in
            let path = try text(path, "the path")
            // A size that cannot be a buffer is refused before its bytes are copied.
            let limit = context(host)?.files?.writeLimit ?? FilesService.maximumWriteBytes
            if let refusal = FilesService.sizeRefusal(path: path, size: size, limit: limit) {
                throw Refusal(status: PB_ERR_INVALID_ARGUMENT, message: refusal)
            }
            guard data != nil || size == 0 else { throw Refusal(status: PB_ERR_INVALID_ARGUMENT, message: "data is NULL but size is \(size)") }
            let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
            return FilesRequest(operation: .write, path: path, data: bytes, flags: flags)
        }
    }

    private static let read: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        filling(out, host, .read, path)
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
        call(host) { () throws(Refusal) in FilesRequest(operation: .remove, path: try text(path, "the path")) }
    }

    private static let rename: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, path, newName, flags in
        call(host) { () throws(Refusal) in
            FilesRequest(operation: .rename, path: try text(path, "the path"), secondPath: try text(newName, "the new name"), flags: flags)
        }
    }

    private static let move: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        call(host) { () throws(Refusal) in
            FilesRequest(operation: .move, path: try text(from, "the source path"), secondPath: try text(to, "the destination path"),
                         flags: flags)
        }
    }

    private static let copy: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        call(host) { () throws(Refusal) in
            FilesRequest(operation: .copy, path: try text(from, "the source path"), secondPath: try text(to, "the destination path"),
                         flags: flags)
        }
    }

    private static let changeExtension: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, fileExtension, flags, newPath in
        call(host) { () throws(Refusal) in
            FilesRequest(operation: .changeExtension, path: try text(path, "the path"), secondPath: try text(fileExtension, "the extension"),
                         flags: flags)
        } use: { payload in
            newPath.map { fill($0, payload) } ?? PB_OK
        }
    }

    private static let list: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        filling(out, host, .list, path)
    }

    private static let attributes: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_file_attributes_t>?) -> pb_status_t = {
        host, path, out in
        var record: UnsafeMutablePointer<pb_file_attributes_t>?
        return call(host) { () throws(Refusal) in
            let request = FilesRequest(operation: .attributes, path: try text(path, "the path"))
            let checked = try output(out, "the attributes pointer")
            let size = Int(checked.pointee.struct_size)
            guard size >= MemoryLayout<pb_file_attributes_t>.size else {
                throw Refusal(status: PB_ERR_INVALID_ARGUMENT, message:
                    "pb_file_attributes_t.struct_size is \(size); at least \(MemoryLayout<pb_file_attributes_t>.size) is needed")
            }
            record = checked
            return request
        } use: { payload in
            guard let record, let found = FilesRecord(payload) else { return PB_ERR_IO }
            record.pointee = found.attributes
            return PB_OK
        }
    }

    private static let exists: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<Bool>?) -> pb_status_t = {
        host, path, out in
        var result: UnsafeMutablePointer<Bool>?
        return call(host) { () throws(Refusal) in
            let request = FilesRequest(operation: .exists, path: try text(path, "the path"))
            result = try output(out, "the result pointer")
            return request
        } use: { payload in
            guard let result else { return PB_ERR_INVALID_ARGUMENT }
            result.pointee = payload.first == 1
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
