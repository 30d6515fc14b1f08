import Testing
@testable import Plugboard

/// The signature language: what parses, its canonical text, and a precise error for the rest.
@Suite struct SignatureTests {
    @Test(arguments: [
        ("double (int32, double, string)", "double (int32, double, string)"),
        ("void ()", "void ()"),
        ("bytes(bytes)", "bytes (bytes)"),
        ("  \tuint8\t(  bool ,pointer , int64 )  ", "uint8 (bool, pointer, int64)"),
        ("float(float,float)", "float (float, float)"),
    ])
    func validSignaturesParse(text: String, canonical: String) throws {
        #expect(try FunctionSignature(parsing: text).description == canonical)
    }

    @Test func everyTypeIsAnArgumentAndAResult() throws {
        for type in FunctionType.allCases where type != .void {
            let signature = try FunctionSignature(parsing: "\(type) (\(type))")
            #expect(signature.result == type && signature.arguments == [type])
        }
    }

    @Test(arguments: [
        ("", 1, "expected a type, found the end of the signature"),
        ("double (int)", 9, "unknown type \"int\""),
        ("Double ()", 1, "unknown type \"Double\""),
        ("int32 (void)", 8, "void is only a return type"),
        ("int32 (int32, void)", 15, "void is only a return type"),
        ("int32", 6, "expected \"(\" after the return type, found the end of the signature"),
        ("int32 int32", 7, "expected \"(\" after the return type, found \"int32\""),
        ("int32 (int32,)", 14, "expected a type, found \")\""),
        ("int32 (int32 int32)", 14, "expected \")\" after an argument type, found \"int32\""),
        ("int32 (int32", 13, "expected \")\" after an argument type, found the end of the signature"),
        ("int32 () extra", 10, "unexpected \"extra\" after the closing \")\""),
        ("int32 ();", 9, "unexpected \";\" after the closing \")\""),
        ("int32 (é)", 8, "expected a type, found \"é\""),
        ("int32 (const char *)", 8, "unknown type \"const\""),
    ])
    func badSignaturesNameTheColumnAndTheCause(text: String, column: Int, message: String) {
        do {
            let signature = try FunctionSignature(parsing: text)
            Issue.record("\"\(text)\" parsed as \(signature)")
        } catch {
            #expect(error.column == column, "\"\(text)\": \(error)")
            #expect(error.message.hasPrefix(message), "\"\(text)\": \(error)")
            #expect(error.description.hasPrefix("column \(column): "))
        }
    }

    @Test func argumentsAreLimited() throws {
        let most = "void (" + Array(repeating: "int8", count: FunctionSignature.maximumArguments).joined(separator: ", ") + ")"
        #expect(try FunctionSignature(parsing: most).arguments.count == FunctionSignature.maximumArguments)
        let tooMany = "void (" + Array(repeating: "int8", count: FunctionSignature.maximumArguments + 1).joined(separator: ",") + ")"
        #expect(throws: SignatureError.self) { try FunctionSignature(parsing: tooMany) }
    }
}
