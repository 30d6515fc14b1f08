import CFaultReporter
import Testing

/// A fault label keeps a plugin's id and library path for the one-line fault and timeout messages,
/// with every control character written as `\xNN` so that a file name cannot forge lines or send
/// terminal escapes; the check reads eight bytes at a time, so each is tried at every place in a word.
@Suite struct FaultLabelTests {
    /// The label's texts for `who` and `library`.
    private static func label(_ who: String, _ library: String) throws -> (who: String, library: String) {
        let label = try #require(who.withCString { who in library.withCString { pbf_label_create(who, $0) } })
        return (String(cString: label.pointee.who), String(cString: label.pointee.library))
    }

    /// The text as a label writes it: control characters (below 0x20, and 0x7f) as `\xNN`.
    private static func escaped(_ text: String) -> String {
        String(decoding: text.utf8.flatMap { byte in
            byte < 0x20 || byte == 0x7F ? Array(("\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)).utf8) : [byte]
        }, as: UTF8.self)
    }

    @Test func aTextWithoutControlCharactersIsKeptAsItIs() throws {
        let path = "/opt/plugins/é-ü-日本/" + String(repeating: "~", count: 37) + ".so"
        let label = try Self.label("com.example.plain", path)
        #expect(label.who == "com.example.plain")
        #expect(label.library == path)
    }

    @Test(arguments: [UInt8(0x01), 0x09, 0x0A, 0x1B, 0x1F, 0x7F])
    func aControlCharacterIsEscapedAtEveryPlaceOfAWord(_ control: UInt8) throws {
        for length in [1, 7, 8, 9, 15, 16, 17, 24] {
            for place in 0..<length {
                var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                bytes[place] = control
                let text = String(decoding: bytes, as: UTF8.self)
                let label = try Self.label(text, "/lib/" + text + ".so")
                #expect(label.who == Self.escaped(text), "length \(length), place \(place)")
                #expect(label.library == "/lib/" + Self.escaped(text) + ".so", "length \(length), place \(place)")
            }
        }
    }

    /// Bytes that are not ASCII (0x80 and up) are neither control characters nor mistaken for them,
    /// next to one or alone.
    @Test func bytesAboveASCIIAreNotControlCharacters() throws {
        let text = "\u{80}\u{FF}é\u{7F}ü\u{1B}日本語テキスト"
        #expect(try Self.label(text, "").who == Self.escaped(text))
        let plain = String(repeating: "é", count: 12) + String(repeating: "\u{A0}", count: 5)
        #expect(try Self.label(plain, "").who == plain)
    }
}
