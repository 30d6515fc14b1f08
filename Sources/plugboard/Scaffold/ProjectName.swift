/// The NAME of `plugboard new`, checked, and the names derived from it.
///
/// 1 to 64 characters: words of lowercase ASCII letters and digits joined by single hyphens,
/// starting with a letter (`deep-links`). That one rule makes every derived name valid in every
/// language without escaping: the project folder and the C library (`deep-links.so`), the URL
/// scheme (`deep-links://`), the last label of the plugin id (`com.example.deep-links`), the Rust
/// library (`libdeep_links.so`), and the plugin type and Swift module (`DeepLinksPlugin`).
struct ProjectName: Equatable, CustomStringConvertible {
    /// The name as given.
    let rawValue: String

    /// The longest name accepted.
    static let maximumLength = 64

    /// Why a text is not a project name.
    enum Invalid: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLong(characters: Int)
        case forbiddenCharacter(Character)
        case firstNotALetter(Character)
        case emptyWord
        case taken(clash: String)

        var description: String {
            switch self {
            case .empty: "the name is empty"
            case .tooLong(let characters):
                "the name is \(characters) characters long; at most \(ProjectName.maximumLength) are allowed"
            case .forbiddenCharacter(let c):
                "the name contains \(String(reflecting: String(c))); only lowercase letters a-z, digits and '-' are allowed"
            case .firstNotALetter(let c):
                "the name starts with \(String(reflecting: String(c))); it must start with a letter a-z"
            case .emptyWord: "the name has a '-' at its start or end, or two in a row"
            case .taken(let clash): "the name would make \(clash); choose another name"
            }
        }
    }

    /// Type and module names the SDKs already use, which a project's own would clash with or shadow.
    private static let takenTypeNames: [String: String] = {
        let concerns = ["ApplicationPlugin", "LaunchPlugin", "OpenURLPlugin", "UserActivityPlugin", "RemoteNotificationPlugin",
                        "MemoryWarningPlugin", "ProtectedDataPlugin", "AppStatePlugin", "TerminationPlugin"]
        var taken = Dictionary(uniqueKeysWithValues: concerns.map { ($0, "a concern protocol of the Swift SDK") })
        taken["SwiftExamplePlugin"] = "a target of the Plugboard package (the Swift example)"
        return taken
    }()

    /// The Rust SDK's crate, which a project's crate may not share.
    private static let sdkCrateName = "plugboard"

    /// Checks `text` as a project name.
    init(validating text: String) throws(Invalid) {
        guard let first = text.first else { throw .empty }
        guard text.count <= Self.maximumLength else { throw .tooLong(characters: text.count) }
        if let c = text.first(where: { !(("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-") }) {
            throw .forbiddenCharacter(c)
        }
        guard ("a"..."z").contains(first) else { throw .firstNotALetter(first) }
        guard !text.split(separator: "-", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw .emptyWord
        }
        rawValue = text
        if let owner = Self.takenTypeNames[typeName] { throw .taken(clash: "the plugin type \(typeName), already \(owner)") }
        if crateName == Self.sdkCrateName { throw .taken(clash: "the Rust crate \(crateName), already the Rust SDK's") }
    }

    var description: String { rawValue }

    /// The URL scheme the scaffolded plugin opens (a valid RFC 3986 scheme: a letter, then letters, digits, `-`).
    var scheme: String { rawValue }

    /// The plugin id a project gets without `--id`.
    var defaultID: String { "com.example." + rawValue }

    /// The Rust library crate: hyphens become underscores (`deep_links`, built as `libdeep_links.so`).
    var crateName: String { String(rawValue.map { $0 == "-" ? "_" : $0 }) }

    /// The plugin's type in C++, Rust and Swift, and the Swift module and product: each word
    /// capitalized, then `Plugin` (`deep-links` → `DeepLinksPlugin`, `x2-go` → `X2GoPlugin`).
    var typeName: String {
        rawValue.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() + "Plugin"
    }
}
