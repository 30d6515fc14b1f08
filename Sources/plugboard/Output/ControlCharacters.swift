/// Control characters made visible, so text that came from a plugin or a file
/// name can neither break a report line (and forge one), drive the terminal, nor
/// reorder what the terminal shows.
enum ControlCharacters {
    /// `text` with every control character written as visible escapes: `\n`, `\r`,
    /// `\t`, `\xHH` for the others (C0, DEL, and C1 such as `\x9b`), and `\u{HHHH}` for the
    /// bidirectional controls U+202A–U+202E and U+2066–U+2069 (embeddings, overrides and
    /// isolates, which make a terminal show text in another order than it is: "Trojan Source").
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || isBidiControl($0) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            case _ where isBidiControl(scalar):
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `scalar` is of the general category Control (Cc), which is exactly C0, DEL and C1:
    /// compared by value, as a property lookup per scalar made a report line cost as much as
    /// the rest of `list` together.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// U+202A–U+202E (LRE, RLE, PDF, LRO, RLO) and U+2066–U+2069 (LRI, RLI, FSI, PDI).
    private static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

extension DefaultStringInterpolation {
    /// A value a message repeats (a path, an argument), between single quotes with its control
    /// characters escaped (``ControlCharacters/escaped(_:)``): a newline in it cannot split the
    /// message, nor an escape sequence reach the terminal.
    mutating func appendInterpolation(quoted value: some StringProtocol) {
        appendLiteral("'" + ControlCharacters.escaped(String(value)) + "'")
    }
}
