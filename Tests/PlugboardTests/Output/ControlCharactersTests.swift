import Testing
@testable import plugboard

/// Report lines keep their control characters visible, whatever they are.
@Suite struct ControlCharactersTests {
    @Test func everyControlCharacterIsEscapedAndNothingElse() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "b"
            let escaped = ControlCharacters.escaped(text)
            let isBidi = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            if scalar.properties.generalCategory == .control || isBidi {
                #expect(escaped != text && escaped.unicodeScalars.allSatisfy { $0.isASCII }, "U+\(String(value, radix: 16))")
            } else if escaped != text {
                Issue.record("U+\(String(value, radix: 16)) escaped as \(escaped)")
            }
        }
    }

    @Test func escapesAreReadable() {
        #expect(ControlCharacters.escaped("a\nb\r\tc\u{1B}[2J\u{9B}\u{202E}") == #"a\nb\r\tc\x1b[2J\x9b\u{202e}"#)
        #expect(ControlCharacters.escaped("plain, é 日本") == "plain, é 日本")
    }
}
