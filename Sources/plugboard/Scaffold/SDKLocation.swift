import ArgumentParser
import Glibc
import SystemPackage

/// The Plugboard SDK folder a scaffolded project builds against, resolved once, at scaffold time,
/// and written into the project's build file: a project lives outside this repository and must
/// build with no edits.
///
/// `--sdk DIR`, else `$PLUGBOARD_SDK`, else the nearest folder above the `plugboard` executable
/// that holds the language's SDK file (``ProjectLanguage/sdkFile``): the repository for a
/// `<repo>/.build/<configuration>/plugboard`, the prefix for an installed `<prefix>/bin/plugboard`
/// (its `include/` serves C and C++).
enum SDKLocation {
    /// The environment variable that names the SDK folder.
    static let variable = "PLUGBOARD_SDK"

    /// Characters a build file (Makefile, Cargo.toml, Package.swift) cannot hold without escaping.
    private static let unsafeCharacters: Set<Character> = ["\"", "\\", "$", "`", "#"]

    /// The SDK folder for `language`, absolute and without symbolic links; a usage error that
    /// says where it looked and how to name it otherwise.
    static func resolve(explicit: String?, environment: [String: String], executable: String,
                        for language: ProjectLanguage) throws -> String {
        let requirement = "the \(language.title) SDK (\(language.sdkFile))"
        if let given = explicit ?? environment[variable] {
            let origin = explicit != nil ? "--sdk \(String(reflecting: given))" : "\(variable)=\(String(reflecting: given))"
            let folder = try canonical(given, origin: origin)
            guard holds(folder, language) else { throw ValidationError("\(origin) does not hold \(requirement)") }
            return try checked(folder)
        }
        let start = try canonical(executable, origin: "the plugboard executable")
        var folder = start
        while let slash = folder.lastIndex(of: "/") {
            folder = String(folder[..<slash])
            if holds(folder.isEmpty ? "/" : folder, language) { return try checked(folder.isEmpty ? "/" : folder) }
        }
        throw ValidationError("found no folder above \(start) that holds \(requirement); pass --sdk DIR "
            + "(a Plugboard checkout) or set \(variable)")
    }

    /// Whether `folder` holds the SDK file of `language`.
    private static func holds(_ folder: String, _ language: ProjectLanguage) -> Bool {
        access(folder + "/" + language.sdkFile, F_OK) == 0
    }

    /// `path` made absolute, with `..` and symbolic links resolved; a usage error naming `origin` when it does not exist.
    private static func canonical(_ path: String, origin: String) throws -> String {
        guard !path.isEmpty else { throw ValidationError("\(origin) is empty") }
        guard let resolved = realpath(WorkingDirectory.absolute(path), nil) else {
            throw ValidationError("\(origin): \(Errno(rawValue: errno))")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `folder`, when every generated build file can hold it as it is.
    private static func checked(_ folder: String) throws -> String {
        if let c = folder.first(where: { unsafeCharacters.contains($0) || $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }) {
            throw ValidationError("the SDK folder \(String(reflecting: folder)) contains \(String(reflecting: String(c))), "
                + "which a generated build file cannot hold; use a path without it (--sdk DIR)")
        }
        return folder
    }
}
