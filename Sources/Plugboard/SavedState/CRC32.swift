/// CRC-32 (IEEE 802.3, the checksum of zlib, gzip and PNG) of a state file.
///
/// Written here because no package the project depends on offers one (the toolchain's
/// zlib is not a module, and Foundation has none); it catches the torn or flipped bytes a
/// state file meets, not tampering (state files are the user's own).
enum CRC32 {
    /// The reflected polynomial 0xEDB88320, one entry per byte value.
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { value, _ in value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
    }

    /// The checksum of `bytes`.
    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
