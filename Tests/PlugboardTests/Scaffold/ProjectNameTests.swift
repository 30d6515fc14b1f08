import Testing
@testable import plugboard

/// `plugboard new`'s NAME rule and the names derived from it for each language.
@Suite struct ProjectNameTests {
    @Test(arguments: [
        ("hello", "HelloPlugin", "hello", "com.example.hello"),
        ("deep-links", "DeepLinksPlugin", "deep_links", "com.example.deep-links"),
        ("x2-go", "X2GoPlugin", "x2_go", "com.example.x2-go"),
        ("a", "APlugin", "a", "com.example.a"),
        ("self", "SelfPlugin", "self", "com.example.self"),
    ])
    func aValidNameMapsToEveryLanguage(name: String, typeName: String, crateName: String, id: String) throws {
        let project = try ProjectName(validating: name)
        #expect(project.typeName == typeName)
        #expect(project.crateName == crateName)
        #expect(project.scheme == name)
        #expect(project.defaultID == id)
    }

    @Test func theLongestNameIsAccepted() throws {
        let name = String(repeating: "a", count: ProjectName.maximumLength)
        #expect(try ProjectName(validating: name).rawValue == name)
    }

    @Test(arguments: [
        ("", ProjectName.Invalid.empty),
        (String(repeating: "a", count: 65), .tooLong(characters: 65)),
        ("Hello", .forbiddenCharacter("H")),
        ("deep_links", .forbiddenCharacter("_")),
        ("deep.links", .forbiddenCharacter(".")),
        ("héllo", .forbiddenCharacter("é")),
        ("a b", .forbiddenCharacter(" ")),
        ("../up", .forbiddenCharacter(".")),
        ("2fa", .firstNotALetter("2")),
        ("-x", .firstNotALetter("-")),
        ("x-", .emptyWord),
        ("deep--links", .emptyWord),
        ("termination", .taken(clash: "the plugin type TerminationPlugin, already a concern protocol of the Swift SDK")),
        ("open-u-r-l", .taken(clash: "the plugin type OpenURLPlugin, already a concern protocol of the Swift SDK")),
        ("swift-example", .taken(clash: "the plugin type SwiftExamplePlugin, already a target of the Plugboard package (the Swift example)")),
        ("plugboard", .taken(clash: "the Rust crate plugboard, already the Rust SDK's")),
    ])
    func anInvalidNameIsRefusedWithItsReason(name: String, reason: ProjectName.Invalid) {
        #expect(throws: reason) { try ProjectName(validating: name) }
    }

    @Test func theReasonNamesTheCharacter() {
        #expect(ProjectName.Invalid.forbiddenCharacter("H").description
                    == #"the name contains "H"; only lowercase letters a-z, digits and '-' are allowed"#)
    }
}
