/// Bytes written as hexadecimal text, the way every command shows bytes (`call`'s results, `state show`).
enum Hexadecimal {
    /// Bytes as lowercase hexadecimal digits, two per byte: `[0x0f, 0xa0]` → `0fa0`.
    static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
