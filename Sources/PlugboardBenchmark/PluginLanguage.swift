/// A language of the benchmark's language rows: the plugin is written with that language's way of
/// writing a Plugboard plugin (C: the ABI by hand; C++: plugin.hpp; Rust: the rust-sdk crate;
/// Swift: PlugboardSDK), and each does the same trivial work.
enum PluginLanguage: String, CaseIterable {
    case c = "C"
    case cplusplus = "C++"
    case rust = "Rust"
    case swift = "Swift"

    /// The folder-name prefix of its plugin sets, e.g. `cpp-10`.
    var folder: String {
        switch self {
        case .c: "c"
        case .cplusplus: "cpp"
        case .rust: "rust"
        case .swift: "swift"
        }
    }
}
