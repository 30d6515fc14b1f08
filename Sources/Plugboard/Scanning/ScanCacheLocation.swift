/// Where the scan cache file lives: the first of `--cache-dir`, `PLUGBOARD_CACHE_DIR`,
/// `$XDG_CACHE_HOME/plugboard` and `~/.cache/plugboard`.
public struct ScanCacheLocation: Sendable, Hashable {
    /// Why a cache directory that was given cannot be used.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// The sentence, naming where the directory came from and what is wrong with it.
        public let description: String
    }

    /// The name of the cache file inside ``directory``.
    public static let fileName = "scan-cache"

    /// The directory of the cache file, an absolute path.
    public let directory: String

    /// The cache file.
    public var file: String { (directory.hasSuffix("/") ? directory : directory + "/") + Self.fileName }

    /// A location in `directory`, which must be an absolute path (`source` names it in the problem).
    public init(directory: String, source: String = "the cache directory") throws(Problem) {
        guard directory.hasPrefix("/") else {
            throw Problem(description: "\(source) must be an absolute path, got \(String(reflecting: directory))")
        }
        self.directory = directory
    }

    /// The location `flag` (`--cache-dir`) names, else `PLUGBOARD_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/plugboard` (an XDG variable that is empty or relative is ignored, as the
    /// XDG spec says), else `$HOME/.cache/plugboard`; nil when none of them is set.
    /// A flag or `PLUGBOARD_CACHE_DIR` that is not an absolute path is a problem.
    public static func resolve(flag: String?, environment: [String: String]) throws(Problem) -> ScanCacheLocation? {
        if let flag { return try ScanCacheLocation(directory: flag, source: "--cache-dir") }
        if let variable = environment["PLUGBOARD_CACHE_DIR"], !variable.isEmpty {
            return try ScanCacheLocation(directory: variable, source: "PLUGBOARD_CACHE_DIR")
        }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return ScanCacheLocation(absolute: cache + "/plugboard")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return ScanCacheLocation(absolute: home + "/.cache/plugboard")
        }
        return nil
    }

    private init(absolute directory: String) {
        self.directory = directory
    }
}
