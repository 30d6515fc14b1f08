import CPlugboard
import Foundation
import PlugboardFiles
import Synchronization

/// The `pb_files_t` host service: the file facade for C plugins, through the
/// path adapter (container paths as `const char *` ↔ facade locations).
///
/// Errors become a status code for the program and a sentence for the person,
/// kept per library and per thread so concurrent plugin threads don't see each
/// other's messages.
final class FilesService: Sendable {
    let facade: FileFacade
    private let lastErrors = Mutex<[UInt: String]>([:])

    init(facade: FileFacade) {
        self.facade = facade
    }

    /// A newly allocated `pb_files_t` whose functions reach this service through
    /// the host table's context.
    static func makeTable() -> UnsafeMutablePointer<pb_files_t> {
        let table = UnsafeMutablePointer<pb_files_t>.allocate(capacity: 1)
        table.initialize(to: pb_files_t(
            struct_size: UInt32(MemoryLayout<pb_files_t>.size),
            write: write, read: read, free_buffer: freeBuffer, remove: remove, rename: rename, move: move,
            copy: copy, change_extension: changeExtension, list: list, attributes: attributes, exists: exists,
            last_error: lastError))
        return table
    }

    // MARK: - Running one call

    /// Runs `body` for the library behind `host`, turning every failure into a status and a remembered sentence.
    /// After the library's end (deinit, or init returned false) the call is refused with PB_ERR_WRONG_STATE.
    private static func call(_ host: UnsafePointer<pb_host>?, _ body: (FilesService) throws -> Void) -> pb_status_t {
        guard let context = context(host), case .local(let service)? = context.files else { return PB_ERR_UNAVAILABLE }
        guard context.lifetime.admits("a files function") else { return PB_ERR_WRONG_STATE }
        if let refusal = context.gate.refusal(.files) {
            service.remember(refusal)
            return PB_ERR_DENIED
        }
        do {
            try body(service)
            service.remember(nil)
            return PB_OK
        } catch let error as FileFacadeError {
            service.remember(error.description)
            return status(for: error.reason)
        } catch let error as ServiceError {
            service.remember(error.message)
            return error.status
        } catch {
            service.remember(String(describing: error))
            return PB_ERR_IO
        }
    }

    private static func context(_ host: UnsafePointer<pb_host>?) -> HostServicesTable.Context? {
        host?.pointee.host_data.map { Unmanaged<HostServicesTable.Context>.fromOpaque($0).takeUnretainedValue() }
    }

    private func remember(_ message: String?) {
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        lastErrors.withLock { $0[thread] = message }
    }

    private func lastError() -> String {
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        return lastErrors.withLock { $0[thread] ?? nil } ?? ""
    }

    /// A problem with the arguments themselves, before the facade is asked.
    private struct ServiceError: Error {
        let status: pb_status_t
        let message: String
    }

    private static func status(for reason: FileFacadeError.Reason) -> pb_status_t {
        switch reason {
        case .invalidName, .escapesContainer, .symbolicLink, .outsideAppDirectories, .notAFileURL: PB_ERR_INVALID_PATH
        case .notFound: PB_ERR_NOT_FOUND
        case .destinationExists: PB_ERR_EXISTS
        case .permissionDenied: PB_ERR_PERMISSION
        case .notADirectory, .isADirectory, .notARegularFile, .directoryNotEmpty, .notUTF8Text: PB_ERR_INVALID_ARGUMENT
        case .noHomeDirectory, .systemError: PB_ERR_IO
        }
    }

    private static func location(_ path: UnsafePointer<CChar>?, _ role: String) throws -> FileLocation {
        guard let path else { throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "\(role) path is NULL") }
        return try PathAdapter.location(forContainerPath: String(cString: path))
    }

    private static func fill(_ out: UnsafeMutablePointer<pb_buffer_t>?, with bytes: some Collection<UInt8>) throws {
        guard let out else { throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "the output buffer is NULL") }
        guard let data = malloc(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) else {
            throw ServiceError(status: PB_ERR_IO, message: "out of memory for \(bytes.count) bytes")
        }
        _ = UnsafeMutableBufferPointer(start: data, count: bytes.count).initialize(from: bytes)
        data[bytes.count] = 0
        out.pointee = pb_buffer_t(data: data, size: bytes.count)
    }

    private static func flag(_ flags: UInt32, _ flag: UInt32) -> Bool { flags & flag != 0 }

    /// The most bytes one `write` takes, 1 GiB: the host copies them before the
    /// atomic write, so a size no buffer has is refused rather than allocated.
    static let maximumWriteBytes = 1 << 30

    /// `size` checked to be a buffer `write` can take. A C `size_t` above
    /// PTRDIFF_MAX (SIZE_MAX, say) arrives here as a negative `Int`.
    private static func writeSize(_ size: Int, for target: FileLocation) throws -> Int {
        if let refusal = sizeRefusal(path: try PathAdapter.containerPath(for: target), size: size) {
            throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: refusal)
        }
        return size
    }

    /// Why `write` refuses `size` bytes for `path`, or nil when it takes them.
    static func sizeRefusal(path: String, size: Int) -> String? {
        guard size < 0 || size > maximumWriteBytes else { return nil }
        return "write '\(path)': size is \(UInt(bitPattern: size)) bytes; the limit is \(maximumWriteBytes) (1 GiB)"
    }

    // MARK: - The table's functions

    private static let write: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, UInt32) -> pb_status_t = {
        host, path, data, size, flags in
        call(host) { service in
            let target = try location(path, "the")
            let count = try writeSize(size, for: target)
            guard data != nil || count == 0 else {
                throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "data is NULL but size is \(count)")
            }
            let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            try service.facade.writeBytes(bytes, to: target.name, in: target.directory,
                                          overwrite: flag(flags, PB_FILES_OVERWRITE),
                                          createIntermediateDirectories: flag(flags, PB_FILES_CREATE_FOLDERS))
        }
    }

    private static let read: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        call(host) { service in
            let target = try location(path, "the")
            try fill(out, with: try service.facade.readBytes(target.name, in: target.directory))
        }
    }

    /// `free_buffer`: frees a buffer a files function filled (malloc'd) and empties it; shared with the worker's table.
    static let freeBuffer: @convention(c) (UnsafePointer<pb_host>?, UnsafeMutablePointer<pb_buffer_t>?) -> Void = {
        _, buffer in
        guard let buffer else { return }
        free(buffer.pointee.data)
        buffer.pointee = pb_buffer_t(data: nil, size: 0)
    }

    private static let remove: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?) -> pb_status_t = {
        host, path in
        call(host) { service in
            let target = try location(path, "the")
            try service.facade.delete(target.name, in: target.directory)
        }
    }

    private static let rename: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, path, newName, flags in
        call(host) { service in
            let target = try location(path, "the")
            guard let newName else { throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "the new name is NULL") }
            try service.facade.rename(target.name, in: target.directory, to: String(cString: newName),
                                      overwrite: flag(flags, PB_FILES_OVERWRITE))
        }
    }

    private static let move: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        call(host) { service in
            let source = try location(from, "the source")
            let destination = try location(to, "the destination")
            try service.facade.move(source.name, from: source.directory, to: destination.name, in: destination.directory,
                                    overwrite: flag(flags, PB_FILES_OVERWRITE),
                                    createIntermediateDirectories: flag(flags, PB_FILES_CREATE_FOLDERS))
        }
    }

    private static let copy: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32) -> pb_status_t = {
        host, from, to, flags in
        call(host) { service in
            let source = try location(from, "the source")
            let destination = try location(to, "the destination")
            try service.facade.copy(source.name, from: source.directory, to: destination.name, in: destination.directory,
                                    overwrite: flag(flags, PB_FILES_OVERWRITE),
                                    createIntermediateDirectories: flag(flags, PB_FILES_CREATE_FOLDERS))
        }
    }

    private static let changeExtension: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, fileExtension, flags, newPath in
        call(host) { service in
            let target = try location(path, "the")
            guard let fileExtension else { throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "the extension is NULL") }
            let newName = try service.facade.changeExtension(of: target.name, in: target.directory,
                                                             to: String(cString: fileExtension),
                                                             overwrite: flag(flags, PB_FILES_OVERWRITE))
            if newPath != nil {
                let full = try PathAdapter.containerPath(for: FileLocation(directory: target.directory, name: newName))
                try fill(newPath, with: Array(full.utf8))
            }
        }
    }

    private static let list: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_buffer_t>?) -> pb_status_t = {
        host, path, out in
        call(host) { service in
            guard let path else { throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "the path is NULL") }
            let text = String(cString: path)
            let entries: [DirectoryEntry]
            if let directory = AppDirectory.allCases.first(where: { $0.relativePath == text }) {
                entries = try service.facade.listContents(of: directory)
            } else {
                let target = try PathAdapter.location(forContainerPath: text)
                entries = try service.facade.listContents(of: target.directory, folder: target.name)
            }
            let objects = entries.map { ["name": $0.name, "kind": kindName($0.kind)] }
            let json = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])
            try fill(out, with: json)
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

    private static let attributes: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<pb_file_attributes_t>?) -> pb_status_t = {
        host, path, out in
        call(host) { service in
            let target = try location(path, "the")
            guard let out else { throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "the attributes pointer is NULL") }
            let size = Int(out.pointee.struct_size)
            guard size >= MemoryLayout<pb_file_attributes_t>.size else {
                throw ServiceError(status: PB_ERR_INVALID_ARGUMENT,
                                   message: "pb_file_attributes_t.struct_size is \(size); at least \(MemoryLayout<pb_file_attributes_t>.size) is needed")
            }
            let found = try service.facade.attributes(of: target.name, in: target.directory)
            let kinds: [FileKind: pb_file_kind_t] = [.file: PB_FILE_KIND_FILE, .directory: PB_FILE_KIND_DIRECTORY,
                                                     .symbolicLink: PB_FILE_KIND_SYMBOLIC_LINK, .other: PB_FILE_KIND_OTHER]
            out.pointee = pb_file_attributes_t(
                struct_size: UInt32(MemoryLayout<pb_file_attributes_t>.size),
                kind: kinds[found.kind] ?? PB_FILE_KIND_OTHER,
                size: found.size,
                permissions: UInt32(found.permissions.rawValue),
                owner_id: found.ownerID,
                modified_ns: nanoseconds(found.modificationDate),
                created_ns: found.creationDate.map(nanoseconds) ?? 0)
        }
    }

    private static func nanoseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1e9).rounded())
    }

    private static let exists: @convention(c) (UnsafePointer<pb_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<Bool>?) -> pb_status_t = {
        host, path, out in
        call(host) { service in
            let target = try location(path, "the")
            guard let out else { throw ServiceError(status: PB_ERR_INVALID_ARGUMENT, message: "the result pointer is NULL") }
            out.pointee = try service.facade.exists(target.name, in: target.directory)
        }
    }

    private static let lastError: @convention(c) (UnsafePointer<pb_host>?, UnsafeMutablePointer<CChar>?, Int) -> Int = {
        host, buffer, capacity in
        let message: String
        if case .local(let service)? = context(host)?.files { message = service.lastError() } else {
            message = "this host offers no files service"
        }
        let bytes = Array(message.utf8)
        if let buffer, capacity > 0 {
            let count = min(bytes.count, capacity - 1)
            for index in 0..<count { buffer[index] = CChar(bitPattern: bytes[index]) }
            buffer[count] = 0
        }
        return bytes.count
    }
}
