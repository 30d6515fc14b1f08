import Foundation
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

    /// A descriptor decoded from a worker's load report holds a name and a version of at most 255
    /// bytes, as a plugin's own is checked where it registers.
    @Test func aDecodedDescriptorRefusesAnOverlongNameOrVersion() throws {
        func decode(name: String, version: String) throws -> PluginDescriptor {
            let object: [String: Any] = ["id": "a.b", "name": name, "version": version, "priority": 3]
            return try JSONDecoder().decode(PluginDescriptor.self, from: JSONSerialization.data(withJSONObject: object))
        }
        let fits = String(repeating: "n", count: 255)
        #expect(try decode(name: fits, version: fits) == PluginDescriptor(id: try PluginID(validating: "a.b"), name: fits,
                                                                          version: fits, priority: 3))
        #expect(throws: DecodingError.self) { try decode(name: fits + "n", version: "1") }
        #expect(throws: DecodingError.self) { try decode(name: "x", version: fits + "v") }
        #expect(PluginDescriptor.refusal(nameBytes: 1, versionBytes: 256) == "the version is longer than 255 bytes, the most allowed")
    }
}
