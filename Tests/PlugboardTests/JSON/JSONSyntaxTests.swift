import Foundation
import Testing
@testable import Plugboard

@Suite struct JSONSyntaxTests {
    /// The fault `JSONSyntax` finds in `bytes`, or nil when it accepts them.
    static func fault(_ bytes: [UInt8], top: JSONSyntax.Top = .value, duplicates: Bool = false) -> JSONSyntaxError? {
        do {
            try JSONSyntax.check(Data(bytes), top: top, refusingDuplicateKeys: duplicates)
            return nil
        } catch {
            return error
        }
    }

    static func fault(_ text: String, top: JSONSyntax.Top = .value, duplicates: Bool = false) -> JSONSyntaxError? {
        fault(Array(text.utf8), top: top, duplicates: duplicates)
    }

    static let valid = [
        "{}", "[]", " \t\r\n{} \n", "0", "-0", "12", "-12.5e+3", "1E9", "0.0", "1e-0", "true", "false", "null",
        #""""#, #""a\"\\\/\b\f\n\r\t""#, #""\u00e9\u0041\uD83D\uDE00""#, "\"é😀\"",
        #"{"a": [1, {"b": null}], "c": "d"}"#, #"[[], {}, [{}]]"#, #"{"a": 1, "A": 2}"#,
    ]

    @Test(arguments: valid)
    func acceptsEveryGrammarRule(text: String) {
        #expect(Self.fault(text, duplicates: true) == nil, "\(text)")
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil, "Foundation agrees: \(text)")
    }

    static let invalid: [(String, String)] = [
        ("", "expected a value, found the end of the text"),
        ("01", "a number cannot start with 0 followed by a digit"),
        ("-01", "a number cannot start with 0 followed by a digit"),
        ("1.", "expected a digit after the decimal point, found the end of the text"),
        (".5", "expected a value, found '.'"),
        ("-", "expected a digit after '-', found the end of the text"),
        ("1e", "expected a digit after the exponent's 'e', found the end of the text"),
        ("1e+", "expected a digit after the exponent's 'e', found the end of the text"),
        ("+1", "expected a value, found '+'"),
        ("0x10", "expected the end of the text after the JSON value, found 'x'"),
        ("[1,]", "a trailing comma before ']'"),
        (#"{"a": 1,}"#, "a trailing comma before '}'"),
        ("[1 2]", "expected ',' or ']' in the array, found '2'"),
        (#"{"a" 1}"#, "expected ':' after the key, found '1'"),
        (#"{"a": 1 "b": 2}"#, "expected ',' or '}' in the object, found '\"'"),
        ("{a: 1}", "expected a key (a string), found 'a'"),
        ("[", "expected a value, found the end of the text"),
        ("{} {}", "expected the end of the text after the JSON value, found '{'"),
        ("tru", "expected 'true'"),
        ("nul", "expected 'null'"),
        ("True", "expected a value, found 'T'"),
        ("'a'", "expected a value, found '''"),
        ("\"abc", "the text ends inside the string that starts here"),
        ("\"a\tb\"", "a control character (byte 0x09) in a string; it must be escaped"),
        (#""\x""#, "'\\' followed by 'x' is not a JSON escape"),
        (#""\u12""#, "'\\u' needs four hex digits"),
        (#""\uD83D""#, "a lone high surrogate \\uD83D (no UTF-8 text can hold it)"),
        (#""\uD83Dx""#, "a lone high surrogate \\uD83D (no UTF-8 text can hold it)"),
        (#""\uD83D\u0041""#, "a lone high surrogate \\uD83D (no UTF-8 text can hold it)"),
        (#""\uDE00""#, "a lone low surrogate \\uDE00 (no UTF-8 text can hold it)"),
        ("[1]\u{0C}", "expected the end of the text after the JSON value, found byte 0x0C"),
    ]

    @Test(arguments: invalid)
    func refusesEachFaultWithItsCause(text: String, reason: String) {
        #expect(Self.fault(text)?.reason == reason, "\(text)")
    }

    @Test func refusesMalformedUTF8() {
        for bytes: [UInt8] in [[0xC0, 0x80], [0xC3], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                               [0xF5, 0x80, 0x80, 0x80], [0x80], [0xFF], [0xE2, 0x82]] {
            let reason = Self.fault([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")])?.reason ?? "accepted"
            #expect(reason.hasPrefix("invalid UTF-8"), "\(bytes): \(reason)")
        }
        #expect(Self.fault([0xEF, 0xBB, 0xBF] + Array("{}".utf8))?.reason == "expected a value, found byte 0xEF")
    }

    @Test func nestsAtMost512Deep() {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(Self.fault(deepest) == nil)
        let tooDeep = String(repeating: "{\"a\":", count: 513) + "1" + String(repeating: "}", count: 513)
        let fault = Self.fault(tooDeep)
        #expect(fault?.reason == "arrays and objects nest deeper than 512")
        #expect(fault?.offset == 512 * 5)
        #expect(Self.fault(String(repeating: "[", count: 100_000))?.reason == "arrays and objects nest deeper than 512")
    }

    @Test func placesTheFaultByOffsetLineAndColumn() {
        let fault = Self.fault("{\n  \"a\": [1,\n    2,]\n}")
        #expect(fault == JSONSyntaxError(offset: 19, line: 3, column: 7, keyPath: nil, reason: "a trailing comma before ']'"))
        #expect(fault?.description == "line 3, column 7: a trailing comma before ']'")
    }

    @Test func refusesAnythingButAnObjectWhenAnObjectIsAsked() {
        #expect(Self.fault("{\"a\": []}", top: .object) == nil)
        #expect(Self.fault(" [1, 2]", top: .object)?.reason == "expected a JSON object, found '['")
        #expect(Self.fault("\"{}\"", top: .object)?.reason == "expected a JSON object, found '\"'")
        #expect(Self.fault("{}x", top: .object)?.reason == "expected the end of the text after the JSON value, found 'x'")
    }

    @Test func refusesDuplicateKeysWithTheirPathOnlyWhenAsked() {
        let text = "{\"plugins\": {\"com.x\": {\"deny\": []},\n \"com.y\": [{\"k\": 1, \"k\": 2}]}}"
        #expect(Self.fault(text) == nil)
        let fault = Self.fault(text, duplicates: true)
        #expect(fault?.keyPath == "plugins.com.y[0].k")
        #expect(fault?.description == "line 2, column 21: the key \"k\" appears twice in one object")
        #expect(Self.fault(#"{"a": 1, "\u0061": 2}"#, duplicates: true)?.keyPath == "a", "keys are compared unescaped")
        #expect(Self.fault(#"{"default": {"deny": ["files"]}, "default": {"deny": []}}"#, duplicates: true)?.keyPath == "default")
        #expect(Self.fault(#"[{"a": 1}, {"a": 1}, {"b": {"a": 1}, "a": 2}]"#, duplicates: true) == nil, "each object has its own keys")
    }
}
