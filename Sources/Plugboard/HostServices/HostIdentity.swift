/// The name and version this host reports to plugins and in reports.
public enum HostIdentity {
    private static let nameLiteral: StaticString = "plugboard"
    private static let versionLiteral: StaticString = "0.1.0"

    /// The host's name.
    public static var name: String { nameLiteral.description }
    /// The host's version.
    public static var version: String { versionLiteral.description }

    /// NUL-terminated copies that live as long as the process, for `pb_host_t`.
    static var nameCString: UnsafePointer<CChar> { UnsafePointer(OpaquePointer(nameLiteral.utf8Start)) }
    static var versionCString: UnsafePointer<CChar> { UnsafePointer(OpaquePointer(versionLiteral.utf8Start)) }
}
