import CPlugboard
import PlugboardWorkerProtocol

/// `pb_file_attributes_t` as the `attributes` reply carries it (WORKER-PROTOCOL.md):
/// kind `i32`, size `u64`, permissions `u32`, owner id `u32`, modified-ns `i64`,
/// created-ns `i64`, little-endian, 36 bytes.
struct FilesRecord {
    /// The attributes, with this host's `struct_size`.
    let attributes: pb_file_attributes_t

    init(_ attributes: pb_file_attributes_t) {
        self.attributes = attributes
    }

    /// Decodes a record; nil when it is not one.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == 36 else { return nil }
        var decoder = WireDecoder(bytes, range: 0..<bytes.count)
        do throws(WorkerProtocolError) {
            attributes = pb_file_attributes_t(
                struct_size: UInt32(MemoryLayout<pb_file_attributes_t>.size),
                kind: try decoder.readInt32("attributes.kind"),
                size: try decoder.readUInt64("attributes.size"),
                permissions: try decoder.readUInt32("attributes.permissions"),
                owner_id: try decoder.readUInt32("attributes.owner-id"),
                modified_ns: try decoder.readInt64("attributes.modified-ns"),
                created_ns: try decoder.readInt64("attributes.created-ns"))
        } catch {
            return nil
        }
    }

    /// The 36 bytes.
    var bytes: [UInt8] {
        var encoder = WireEncoder()
        encoder.append(attributes.kind)
        encoder.append(attributes.size)
        encoder.append(attributes.permissions)
        encoder.append(attributes.owner_id)
        encoder.append(attributes.modified_ns)
        encoder.append(attributes.created_ns)
        return encoder.bytes
    }
}
