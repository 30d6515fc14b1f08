/// Where a plugin function is called: `plugin-id.function`, e.g. `com.example.units.convert`.
public struct FunctionAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The plugin that declares the function.
    public let plugin: PluginID
    /// The function's name in that plugin.
    public let function: String

    /// The address of `function` in `plugin`.
    public init(plugin: PluginID, function: String) {
        self.plugin = plugin
        self.function = function
    }

    /// Parses `plugin-id.function`: the text after the last dot is the function,
    /// the text before it a valid plugin id; otherwise ``PluginCallError/malformedAddress(_:reason:)``.
    public init(parsing text: String) throws(PluginCallError) {
        guard let dot = text.lastIndex(of: ".") else {
            throw .malformedAddress(text, reason: "expected plugin-id.function, e.g. com.example.units.convert")
        }
        let function = String(text[text.index(after: dot)...])
        if let problem = FunctionName.problem(function) {
            throw .malformedAddress(text, reason: problem)
        }
        do {
            plugin = try PluginID(validating: String(text[..<dot]))
        } catch {
            throw .malformedAddress(text, reason: "\(error)")
        }
        self.function = function
    }

    /// `plugin-id.function`.
    public var description: String { "\(plugin).\(function)" }
}

/// The rule for function names: 1 to 64 bytes, `[a-z_]` first, `[a-z0-9_]` after.
enum FunctionName {
    /// The longest name, in bytes.
    static let maximumLength = 64

    /// Why `name` is not a valid function name, or nil if it is.
    static func problem(_ name: String) -> String? {
        let length = name.utf8.count
        guard length > 0 else { return "the function name is empty" }
        guard length <= maximumLength else {
            return "the function name is \(length) bytes long; the limit is \(maximumLength)"
        }
        var offset = 0
        for scalar in name.unicodeScalars {
            let allowed = switch scalar {
            case "a"..."z", "_": true
            case "0"..."9": offset > 0
            default: false
            }
            guard allowed else {
                let shown = scalar.properties.generalCategory == .control
                    ? "U+" + String(scalar.value, radix: 16, uppercase: true) : "\"\(scalar)\""
                return "the function name has \(shown) at byte \(offset + 1): a name is [a-z_] then [a-z0-9_]"
            }
            offset += scalar.utf8.count
        }
        return nil
    }
}
