/// A function a plugin declares and the host accepted, as reports show it.
public struct FunctionDeclaration: Sendable, Codable, Equatable {
    /// The name, unique in its plugin (the part after the dot of a ``FunctionAddress``).
    public let name: String
    /// The signature in canonical form, e.g. `double (string, string, double)`.
    public let signature: String
    /// What the function does, as the plugin wrote it; empty when it gave none.
    public let doc: String
}

/// A function declaration the host refused when the plugin loaded: never called.
public struct FunctionRefusal: Error, Sendable, Codable, Equatable {
    /// The name as the plugin gave it; empty when there was none to read.
    public let name: String
    /// Why it was refused, e.g. `signature "double (int)": column 9: unknown type "int" …`.
    public let reason: String
}
