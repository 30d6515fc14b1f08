import Testing
@testable import Plugboard

@Suite struct PluginIDTests {
    @Test(arguments: ["com.example.deeplinks", "a.b", "org.x-y.z_1"])
    func acceptsReverseDNS(_ text: String) throws {
        #expect(try PluginID(validating: text).rawValue == text)
    }

    @Test(arguments: [
        ("", PluginID.Invalid.empty),
        ("nodots", .notReverseDNS),
        ("a..b", .notReverseDNS),
        (".a.b", .notReverseDNS),
        ("a.b.", .notReverseDNS),
        ("com.ex ample", .forbiddenCharacter(" ")),
        ("com/example.x", .forbiddenCharacter("/")),
    ])
    func refusesMalformed(_ text: String, _ expected: PluginID.Invalid) {
        #expect(throws: expected) { try PluginID(validating: text) }
    }

    @Test func refusesOverlong() {
        let text = "com." + String(repeating: "x", count: 252)
        #expect(throws: PluginID.Invalid.tooLong(bytes: 256)) { try PluginID(validating: text) }
    }
}
