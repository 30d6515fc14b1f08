/// Reads the one JSON shape the files service's `list` answers: an array of objects whose values
/// are strings. Just enough JSON to keep Foundation out of every Swift plugin; nil for anything else.
struct JSONStringObjectReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The whole input as `[{"key": "value", …}, …]`; nil unless that is all it holds.
    mutating func arrayOfStringObjects() -> [[String: String]]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var objects: [[String: String]] = []
        if !take(UInt8(ascii: "]")) {
            repeat {
                guard let object = stringObject() else { return nil }
                objects.append(object)
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
        }
        skipSpace()
        return index == bytes.count ? objects : nil
    }

    /// `{"key": "value", …}`.
    private mutating func stringObject() -> [String: String]? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var object: [String: String] = [:]
        if take(UInt8(ascii: "}")) { return object }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), let value = string() else { return nil }
            object[key] = value
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? object : nil
    }

    /// A JSON string, its escapes decoded (`\uXXXX` surrogate pairs included).
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        /// Moves the raw UTF-8 run read so far into `scalars`.
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard let scalar = escape() else { return nil }
                scalars.append(scalar)
            case 0..<0x20:
                return nil
            default:
                raw.append(byte)
            }
        }
        return nil
    }

    /// The character after a backslash.
    private mutating func escape() -> Unicode.Scalar? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return nil }
            guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) }
            guard take(UInt8(ascii: "\\"), skippingSpace: false), take(UInt8(ascii: "u"), skippingSpace: false),
                  let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
        default: return nil
        }
    }

    /// Four hex digits.
    private mutating func hexUnit() -> UInt16? {
        guard index + 4 <= bytes.count,
              let unit = UInt16(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return nil }
        index += 4
        return unit
    }

    /// Consumes `byte` (after white space unless told otherwise) if it comes next.
    private mutating func take(_ byte: UInt8, skippingSpace: Bool = true) -> Bool {
        if skippingSpace { skipSpace() }
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }
}
