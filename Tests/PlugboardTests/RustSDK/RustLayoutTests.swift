import Foundation
import Testing

/// The Rust SDK's hand-written `#[repr(C)]` mirrors agree with the C header: every struct's
/// size, every field's offset and every numeric constant. The C side is generated from the
/// header itself, so a field or struct added to the header fails here until Rust has it too.
@Suite struct RustLayoutTests {
    /// The structs of `include/plugboard/**`: typedef name and field names, in header order.
    struct HeaderStruct {
        let name: String
        let fields: [String]
    }

    /// Every `struct pb_x { … }` body of every header and every `#define PB_…` with a number;
    /// and, to check the parser, how many struct bodies and `typedef struct`s with a body the text has.
    static func parseHeaders() throws -> (structs: [HeaderStruct], constants: [String], bodies: Int, typedefs: Int) {
        let root = TestPaths.include + "/plugboard"
        let files = try #require(FileManager.default.enumerator(atPath: root)?.allObjects as? [String]).filter { $0.hasSuffix(".h") }.sorted()
        var structs: [HeaderStruct] = []
        var constants: [String] = []
        var bodies = 0
        var typedefTags: [String] = []
        var bodyTags: Set<String> = []
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                .replacing(#/\/\*[\s\S]*?\*\//#, with: " ").replacing(#/\/\/[^\n]*/#, with: "")
            bodies += text.matches(of: #/\bstruct\s+pb_\w+\s*\{/#).count
            typedefTags += text.matches(of: #/\btypedef\s+struct\s+(\w+)/#).map { String($0.output.1) }
            bodyTags.formUnion(text.matches(of: #/\bstruct\s+(pb_\w+)\s*\{/#).map { String($0.output.1) })
            for match in text.matches(of: #/\bstruct\s+(pb_\w+)\s*\{([^}]*)\}/#) {
                let fields = match.output.2.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                    .filter { !$0.isEmpty }.map { declaration -> String in
                        if let pointer = declaration.firstMatch(of: #/\(\s*\*\s*(\w+)\s*\)/#) { return String(pointer.output.1) }
                        return String(declaration.matches(of: #/\w+/#).last?.output ?? "")
                    }
                structs.append(HeaderStruct(name: match.output.1 + "_t", fields: fields))
            }
            for match in text.matches(of: #/#define\s+(PB_\w+)[ \t]+\(?-?[0-9]+u?\)?[ \t]*\n/#) {
                constants.append(String(match.output.1))
            }
        }
        // An opaque handle (`pb_prepared_invoke_t`) is a typedef with no body anywhere: no layout.
        return (structs, constants, bodies, typedefTags.filter(bodyTags.contains).count)
    }

    /// A C program that prints, for the header, what `examples/abi_layout.rs` prints for the mirrors.
    static func layoutProgram(_ structs: [HeaderStruct], _ constants: [String]) -> String {
        var lines = ["#include <plugboard.h>", "#include <stdio.h>", "int main(void) {"]
        for type in structs {
            lines.append("    printf(\"size \(type.name) %zu\\n\", sizeof(\(type.name)));")
            for field in type.fields {
                lines.append("    printf(\"offset \(type.name).\(field) %zu\\n\", offsetof(\(type.name), \(field)));")
            }
        }
        for constant in constants {
            lines.append("    printf(\"constant \(constant) %lld\\n\", (long long)(\(constant)));")
        }
        return (lines + ["    return 0;", "}"]).joined(separator: "\n") + "\n"
    }

    /// "kind name value" lines as name → "kind value".
    static func table(_ output: String) -> [String: String] {
        var table: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 3 { table[String(parts[1])] = "\(parts[0]) \(parts[2])" }
        }
        return table
    }

    @Test func theHeaderParserFindsEveryStruct() throws {
        let (structs, constants, bodies, typedefs) = try Self.parseHeaders()
        #expect(structs.count == bodies, "the parser missed a struct body: \(structs.map(\.name))")
        #expect(structs.count == typedefs, "\(typedefs) typedef structs, \(structs.count) parsed: \(structs.map(\.name))")
        #expect(structs.allSatisfy { !$0.fields.isEmpty && !$0.fields.contains("") }, "\(structs)")
        #expect(constants.contains("PB_ERR_UNAVAILABLE") && constants.contains("PB_FETCH_FAILED"), "\(constants)")
    }

    @Test func everyStructFieldAndConstantMatchesTheHeader() throws {
        let directory = try TemporaryDirectory("plugboard-rust-layout")
        defer { directory.remove() }
        let (structs, constants, _, _) = try Self.parseHeaders()
        try directory.write("layout.c", Self.layoutProgram(structs, constants))
        let compiled = try run("/usr/bin/env", ["cc", "-std=c11", "-Wall", "-Werror", "-I", TestPaths.include,
                                                directory.file("layout.c"), "-o", directory.file("layout")])
        try #require(compiled.status == 0, "cc failed:\n\(compiled.errorOutput)")
        let header = Self.table(try run(directory.file("layout"), []).output)
        let manifest = TestPaths.packageRoot.appendingPathComponent("plugins/rust-sdk/Cargo.toml").path
        let mirrors = Self.table(try Cargo.run(["run", "--quiet", "--example", "abi_layout", "--manifest-path", manifest],
                                               targetDirectory: directory.file("target")).output)
        #expect(header.count == structs.reduce(0) { $0 + 1 + $1.fields.count } + constants.count)
        for (name, value) in header.sorted(by: { $0.key < $1.key }) {
            #expect(mirrors[name] == value, "\(name): the header says \(value), the Rust mirror \(mirrors[name] ?? "lacks it")")
        }
        for name in Set(mirrors.keys).subtracting(header.keys).sorted() {
            Issue.record("\(name): only in the Rust mirror (\(mirrors[name] ?? ""))")
        }
    }
}
