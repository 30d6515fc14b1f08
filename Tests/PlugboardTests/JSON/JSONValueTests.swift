import Foundation
import Testing
@testable import Plugboard

/// ``JSONValue`` reads every kind of value, keeps whole numbers exact, and writes compact text
/// with sorted keys, as the access policy, the sandbox grants and event scripts rely on.
@Suite struct JSONValueTests {
    @Test func everyKindIsReadAsItself() throws {
        let value = try JSONValue(json: Array(#"{"b":[true,false,null],"a":"x/y","n":-2.5,"i":7,"o":{}}"#.utf8))
        #expect(value == .object(["b": .array([.bool(true), .bool(false), .null]), "a": .string("x/y"),
                                  "n": .number(-2.5), "i": .integer(7), "o": .object([:])]))
    }

    @Test(arguments: [("3", 3), ("3.0", 3), ("3e0", 3), ("-0", 0), ("9007199254740993", 9_007_199_254_740_993),
                      ("-9223372036854775808", Int.min)])
    func wholeNumbersAreExact(text: String, expected: Int) throws {
        #expect(try JSONValue(json: Array(text.utf8)).asWholeNumber == expected)
    }

    @Test(arguments: ["2.5", "1e300", "9223372036854775808", "true", "\"3\"", "[3]"])
    func otherValuesAreNoWholeNumber(text: String) throws {
        #expect(try JSONValue(json: Array(text.utf8)).asWholeNumber == nil)
    }

    @Test func textIsCompactWithSortedKeysAndUnescapedSlashes() throws {
        let value = try JSONValue(json: Array(#"{"z":1,"a":{"y":[1.5,"a/b",null],"b":false},"m":9007199254740993}"#.utf8))
        #expect(value.text == #"{"a":{"b":false,"y":[1.5,"a/b",null]},"m":9007199254740993,"z":1}"#)
    }

    @Test func textReadsBackAsTheSameValue() throws {
        let source = #"{"e":"\u00e9\n\"\\","list":[[],{},-0.125,1e-7,"🎛️"],"t":true}"#
        let value = try JSONValue(json: Array(source.utf8))
        #expect(try JSONValue(json: Array(value.text.utf8)) == value)
    }

    @Test func accessorsAnswerOnlyForTheirKind() throws {
        let value = try JSONValue(json: Array(#"["a","b"]"#.utf8))
        #expect(value.asStrings == ["a", "b"])
        #expect(value.asArray?.count == 2 && value.asObject == nil && value.asString == nil)
        #expect(try JSONValue(json: Array(#"["a",1]"#.utf8)).asStrings == nil)
    }

    /// Not strict: the callers check the text with ``JSONSyntax`` first (a trailing comma passes here).
    @Test(arguments: ["", "{", "nul", "{\"a\"}", "[1 2]"])
    func textThatIsNotJSONIsAnError(text: String) {
        #expect(throws: (any Error).self) { try JSONValue(json: Array(text.utf8)) }
    }
}
