import CPlugboard
import Foundation
import Testing
@testable import Plugboard

/// A library's ABI facts: each struct once, with the largest size declared, in byte order.
struct LibraryABITests {
    private let version = ABIVersion(major: 1, minor: 5)

    @Test func eachStructOnceWithItsLargestSizeInByteOrder() {
        let abi = LibraryABI(version: version, declared: [
            ("pb_plugin_t", 120), ("pb_entry_t", 48), ("pb_launch_t", 24), ("pb_plugin_t", 128), ("pb_launch_t", 16),
        ])
        #expect(abi.sortedStructSizes.map(\.name) == ["pb_entry_t", "pb_launch_t", "pb_plugin_t"])
        #expect(abi.sortedStructSizes.map(\.size) == [48, 24, 128])
        #expect(abi.structSizes == ["pb_entry_t": 48, "pb_launch_t": 24, "pb_plugin_t": 128])
    }

    /// The sizes a loaded library declared are kept by struct, and listed by `ABIStructName`'s order:
    /// which must be the byte order of the C names, one slot each.
    @Test func theStructsAreNamedInByteOrderOneSlotEach() {
        let names = ABIStructName.allCases.map(\.cName)
        #expect(names == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(ABIStructName.allCases.count == 12 && Set(names).count == 12, "DeclaredStructSizes has 12 slots")
        // Each struct's name, and the name of the type it is declared as (typedef struct pb_x {…} pb_x_t).
        let declared = [(pb_entry_t.cName, "\(pb_entry_t.self)"), (pb_plugin_t.cName, "\(pb_plugin_t.self)"),
                        (pb_launch_t.cName, "\(pb_launch_t.self)"), (pb_open_url_t.cName, "\(pb_open_url_t.self)"),
                        (pb_user_activity_t.cName, "\(pb_user_activity_t.self)"),
                        (pb_remote_notifications_t.cName, "\(pb_remote_notifications_t.self)"),
                        (pb_memory_t.cName, "\(pb_memory_t.self)"), (pb_protected_data_t.cName, "\(pb_protected_data_t.self)"),
                        (pb_app_state_t.cName, "\(pb_app_state_t.self)"), (pb_termination_t.cName, "\(pb_termination_t.self)"),
                        (pb_function_t.cName, "\(pb_function_t.self)"), (pb_saved_state_t.cName, "\(pb_saved_state_t.self)")]
        #expect(Set(declared.map(\.0)) == Set(names))
        for (cName, type) in declared { #expect(cName == type + "_t") }
        var sizes = DeclaredStructSizes()
        for name in ABIStructName.allCases { sizes.declare(name, size: name.rawValue) }
        let abi = LibraryABI(version: version, declared: sizes)
        #expect(abi.sortedStructSizes.map(\.name) == names)
        #expect(abi.sortedStructSizes.map(\.size) == Array(0..<12))
    }

    @Test func declaredSizesKeepTheLargestOfEachStruct() {
        var library = DeclaredStructSizes(.entry, size: 40)
        var first = DeclaredStructSizes(), second = DeclaredStructSizes()
        first.declare(.plugin, size: 120)
        first.declare(.launch, size: 24)
        second.declare(.plugin, size: 128)
        second.declare(.appState, size: 0)
        library.declare(first)
        library.declare(second)
        let abi = LibraryABI(version: version, declared: library)
        #expect(abi == LibraryABI(version: version, declared: [
            ("pb_plugin_t", 120), ("pb_entry_t", 40), ("pb_launch_t", 24), ("pb_plugin_t", 128), ("pb_app_state_t", 0),
        ]))
        #expect(abi.sortedStructSizes.map(\.size) == [0, 40, 24, 128])
    }

    @Test func theDictionaryFormSetsAndReadsTheSameFacts() {
        var abi = LibraryABI(version: version, structSizes: ["pb_plugin_t": 120, "pb_entry_t": 48])
        #expect(abi == LibraryABI(version: version, declared: [("pb_entry_t", 48), ("pb_plugin_t", 120)]))
        abi.structSizes["pb_memory_t"] = 16
        #expect(abi.sortedStructSizes.map(\.name) == ["pb_entry_t", "pb_memory_t", "pb_plugin_t"])
        #expect(abi != LibraryABI(version: version, structSizes: ["pb_plugin_t": 120, "pb_entry_t": 48]))
    }

    /// Two names with different bytes that `String` takes for the same text (from a damaged scan cache
    /// or a hostile worker's report) stay two in the list and are one in the table, with the larger
    /// size: neither view stops the host.
    @Test func namesTheSameAsTextButNotInBytesStopNothing() throws {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        let abi = LibraryABI(version: version, declared: [(decomposed, 8), ("f", 16), (composed, 24)])
        #expect(abi.sortedStructSizes.map(\.size) == [8, 16, 24])
        #expect(abi.structSizes.count == 2)
        #expect(abi.structSizes[composed] == 24)
        #expect(try JSONEncoder().encode(abi).isEmpty == false)
    }

    @Test func itsCodableFormIsTheTableByName() throws {
        let abi = LibraryABI(version: version, declared: [("pb_plugin_t", 120), ("pb_entry_t", 48)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try #require(String(data: try encoder.encode(abi), encoding: .utf8))
        #expect(json == #"{"structSizes":{"pb_entry_t":48,"pb_plugin_t":120},"version":{"major":1,"minor":5}}"#)
        #expect(try JSONDecoder().decode(LibraryABI.self, from: Data(json.utf8)) == abi)
    }
}
