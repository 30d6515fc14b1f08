import CPlugboard
import Glibc
import PlugboardPluginAPI

/// A Swift type a plugin function takes as an argument: `Bool`, `Int8`…`Int64`, `UInt8`…`UInt64`,
/// `Float`, `Double`, `String` (`string`), `[UInt8]` (`bytes`), `UnsafeMutableRawPointer?` (`pointer`).
public protocol PluginFunctionArgument: SendableMetatype {
    /// Its type in the signature language.
    static var pluginFunctionType: FunctionType { get }
    /// The value from the C parameters of a call: `parameters[index]` points to the first of
    /// them (libffi's argument array). The host's data is copied. SDK machinery.
    init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int)
}

/// A Swift type a plugin function returns: the argument types, and no result (a `Void` closure).
/// `String` and `[UInt8]` results are copied into a `malloc`'d buffer per call, which the host
/// releases with `free` (the declaration's `release`).
public protocol PluginFunctionResult: SendableMetatype {
    /// Its type in the signature language.
    static var pluginFunctionType: FunctionType { get }
    /// Writes the C result where libffi's closure expects it (an integer narrower than a register is
    /// widened to `ffi_arg`), or throws why it cannot cross. SDK machinery.
    func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure)
    /// Writes the value answered after an error: `false`, `0`, NaN, NULL, `""`, empty bytes. SDK machinery.
    static func writeCFailValue(to result: UnsafeMutableRawPointer)
    /// The fail value as the log line names it, e.g. `NaN`.
    static var failValueText: String { get }
}

/// Why a result could not be handed to the host.
public struct PluginFunctionFailure: Error, Sendable, CustomStringConvertible {
    /// The reason, e.g. "the string result contains a NUL byte".
    public let description: String
}

/// An integer that crosses as itself; narrower than a register, it is widened as a result.
protocol PluginFunctionInteger: FixedWidthInteger, PluginFunctionArgument, PluginFunctionResult {}

extension PluginFunctionInteger {
    public init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int) {
        self = parameters[index].map { $0.loadUnaligned(as: Self.self) } ?? 0
    }
    public func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {
        // libffi's closure rule: a narrow integer result fills a whole ffi_arg, sign- or zero-extended.
        if Self.isSigned {
            result.storeBytes(of: Int64(self), as: Int64.self)
        } else {
            result.storeBytes(of: UInt64(self), as: UInt64.self)
        }
    }
    public static func writeCFailValue(to result: UnsafeMutableRawPointer) {
        result.storeBytes(of: UInt64(0), as: UInt64.self)
    }
    public static var failValueText: String { "0" }
}

extension Int8: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .int8 } }
extension Int16: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .int16 } }
extension Int32: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .int32 } }
extension Int64: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .int64 } }
extension UInt8: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .uint8 } }
extension UInt16: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .uint16 } }
extension UInt32: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .uint32 } }
extension UInt64: PluginFunctionInteger { public static var pluginFunctionType: FunctionType { .uint64 } }

extension Bool: PluginFunctionArgument, PluginFunctionResult {
    public static var pluginFunctionType: FunctionType { .bool }
    public init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int) {
        self = parameters[index].map { $0.load(as: UInt8.self) != 0 } ?? false
    }
    public func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {
        result.storeBytes(of: self ? 1 : 0, as: UInt64.self)
    }
    public static func writeCFailValue(to result: UnsafeMutableRawPointer) {
        result.storeBytes(of: 0, as: UInt64.self)
    }
    public static var failValueText: String { "false" }
}

extension Float: PluginFunctionArgument, PluginFunctionResult {
    public static var pluginFunctionType: FunctionType { .float }
    public init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int) {
        self = parameters[index].map { $0.loadUnaligned(as: Float.self) } ?? .nan
    }
    public func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {
        result.storeBytes(of: self, as: Float.self)
    }
    public static func writeCFailValue(to result: UnsafeMutableRawPointer) {
        result.storeBytes(of: Float.nan, as: Float.self)
    }
    public static var failValueText: String { "NaN" }
}

extension Double: PluginFunctionArgument, PluginFunctionResult {
    public static var pluginFunctionType: FunctionType { .double }
    public init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int) {
        self = parameters[index].map { $0.loadUnaligned(as: Double.self) } ?? .nan
    }
    public func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {
        result.storeBytes(of: self, as: Double.self)
    }
    public static func writeCFailValue(to result: UnsafeMutableRawPointer) {
        result.storeBytes(of: Double.nan, as: Double.self)
    }
    public static var failValueText: String { "NaN" }
}

extension Optional: PluginFunctionArgument, PluginFunctionResult where Wrapped == UnsafeMutableRawPointer {
    public static var pluginFunctionType: FunctionType { .pointer }
    public init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int) {
        self = parameters[index].flatMap { $0.load(as: UnsafeMutableRawPointer?.self) }
    }
    public func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {
        result.storeBytes(of: self, as: UnsafeMutableRawPointer?.self)
    }
    public static func writeCFailValue(to result: UnsafeMutableRawPointer) {
        result.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
    }
    public static var failValueText: String { "NULL" }
}

extension String: PluginFunctionArgument, PluginFunctionResult {
    public static var pluginFunctionType: FunctionType { .string }
    public init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int) {
        let text = parameters[index].flatMap { $0.load(as: UnsafePointer<CChar>?.self) }
        self = text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
    }
    public func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {
        let bytes = Array(utf8)
        guard !bytes.contains(0) else { throw PluginFunctionFailure(description: "the string result contains a NUL byte") }
        result.storeBytes(of: try MallocCopy.of(bytes), as: UnsafeMutableRawPointer.self)
    }
    public static func writeCFailValue(to result: UnsafeMutableRawPointer) {
        // Released with free like any string result; NULL (no memory) is reported by the host as a breach.
        result.storeBytes(of: calloc(1, 1), as: UnsafeMutableRawPointer?.self)
    }
    public static var failValueText: String { "\"\"" }
}

extension Array: PluginFunctionArgument, PluginFunctionResult where Element == UInt8 {
    public static var pluginFunctionType: FunctionType { .bytes }
    public init(cParameters parameters: UnsafeMutablePointer<UnsafeMutableRawPointer?>, at index: Int) {
        let data = parameters[index].flatMap { $0.load(as: UnsafePointer<UInt8>?.self) }
        let size = parameters[index + 1].map { $0.load(as: Int.self) } ?? 0
        self = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }
    public func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {
        let copy = try MallocCopy.of(self)
        result.storeBytes(of: pb_bytes_t(data: UnsafePointer(copy.assumingMemoryBound(to: UInt8.self)), size: count),
                          as: pb_bytes_t.self)
    }
    public static func writeCFailValue(to result: UnsafeMutableRawPointer) {
        result.storeBytes(of: pb_bytes_t(data: nil, size: 0), as: pb_bytes_t.self)
    }
    public static var failValueText: String { "empty bytes" }
}

/// The result of a function declared with a `Void` closure.
struct NoResult: PluginFunctionResult {
    static var pluginFunctionType: FunctionType { .void }
    func writeCResult(to result: UnsafeMutableRawPointer) throws(PluginFunctionFailure) {}
    static func writeCFailValue(to result: UnsafeMutableRawPointer) {}
    static var failValueText: String { "nothing" }
}

/// A result copied for the host: `malloc`'d, released by the host with `free`.
enum MallocCopy {
    /// A copy of `bytes` followed by a NUL byte.
    static func of(_ bytes: [UInt8]) throws(PluginFunctionFailure) -> UnsafeMutableRawPointer {
        guard let copy = malloc(bytes.count + 1) else {
            throw PluginFunctionFailure(description: "no memory for a copy of \(bytes.count) bytes")
        }
        bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(copy), byteCount: $0.count) }
        copy.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        return copy
    }
}
