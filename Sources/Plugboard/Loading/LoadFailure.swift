/// Why a library, or one plugin of it, was not loaded: a stage, a sentence, and
/// the system's own words where there are some.
public struct LoadFailure: Error, Sendable, Codable, Equatable, CustomStringConvertible {
    /// The step that failed.
    public let stage: LoadStage
    /// What went wrong, naming the thing and the cause.
    public let message: String
    /// `dlerror()` or `strerror()` text, when the system said something.
    public let systemError: String?

    /// Describes a failure at `stage`.
    public init(_ stage: LoadStage, _ message: String, systemError: String? = nil) {
        self.stage = stage
        self.message = message
        self.systemError = systemError
    }

    /// One line: stage, message and the system's text.
    public var description: String {
        var line = "\(stage.rawValue): \(message)"
        if let systemError, !systemError.isEmpty { line += " (\(systemError))" }
        return line
    }
}

extension LoadFailure {
    /// The refusal of the plugin id `id`, which the libraries at `first` and `second` both register:
    /// it belongs to neither.
    static func contested(_ id: PluginID, first: String, second: String) -> LoadFailure {
        LoadFailure(.register, "plugin id '\(id)' is claimed by two libraries, \(first) and \(second): refused for both")
    }
}
