/// Control characters made visible, so text that came from a plugin or a file
/// name can neither break a report line (and forge one) nor drive the terminal.
enum ControlCharacters {
    /// `text` with every control character written as visible escapes: `\n`, `\r`,
    /// `\t`, and `\xHH` for the others (C0, DEL, and C1 such as `\x9b`).
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
