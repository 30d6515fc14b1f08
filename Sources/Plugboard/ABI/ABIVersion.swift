import CPlugboard

/// An ABI version: the major must match the host's; the minor must not exceed it.
public struct ABIVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Incompatible changes bump this.
    public let major: UInt32
    /// Additions at the end of structs bump this.
    public let minor: UInt32

    /// The version this host implements.
    public static let host = ABIVersion(major: PB_ABI_VERSION_MAJOR, minor: PB_ABI_VERSION_MINOR)

    public var description: String { "\(major).\(minor)" }

    /// Why a plugin built for `self` cannot load in this host, or nil if it can.
    func incompatibility(with host: ABIVersion = .host) -> String? {
        if major != host.major {
            return "ABI major version mismatch: field abi_major, plugin \(major), host \(host.major)"
        }
        if minor > host.minor {
            return "plugin built for ABI \(self), newer than the host's \(host): field abi_minor, plugin \(minor), host \(host.minor)"
        }
        return nil
    }
}
