import ArgumentParser

/// The languages `plugboard new` writes a plugin project in.
enum ProjectLanguage: String, CaseIterable, ExpressibleByArgument {
    case c, cpp, rust, swift

    /// The language's name in messages and READMEs.
    var title: String {
        switch self {
        case .c: "C"
        case .cpp: "C++"
        case .rust: "Rust"
        case .swift: "Swift"
        }
    }

    /// The file, relative to an SDK folder, that this language's projects build against.
    var sdkFile: String {
        switch self {
        case .c: "include/plugboard.h"
        case .cpp: "include/plugboard/cpp/plugin.hpp"
        case .rust: "plugins/rust-sdk/Cargo.toml"
        case .swift: "Sources/PlugboardSDK"
        }
    }

    /// The project's sources, build file and build command for `project`.
    func template(_ project: Scaffold) -> LanguageTemplate {
        switch self {
        case .c: .c(project)
        case .cpp: .cpp(project)
        case .rust: .rust(project)
        case .swift: .swift(project)
        }
    }
}
