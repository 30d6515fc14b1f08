import Glibc
import Plugboard
import PlugboardSystem
import SystemPackage

/// The arguments of `plugboard call`, read from their command-line text by the
/// declared type of each parameter (the rules `plugboard call --help` lists).
enum CallArguments {
    /// `texts` as the values `signature` declares for `address`, or the first problem:
    /// a missing or extra argument (with the signature), or an argument that is not
    /// its type (naming the position, the type and the value).
    static func parse(_ texts: [String], for address: FunctionAddress,
                      signature: FunctionSignature) throws(CallArgumentError) -> [PluginValue] {
        guard texts.count == signature.arguments.count else {
            let expected = signature.arguments.count
            // The extra ones are named: an option put after the arguments, say, is taken as one.
            let extra = texts.count > expected ? "; the extra: " + texts[expected...].map { "\(quoted: $0)" }.joined(separator: ", ") : ""
            throw CallArgumentError("\(address) takes \(expected) argument\(expected == 1 ? "" : "s"), \(texts.count) given"
                                    + " (signature: \(signature))" + extra)
        }
        var values: [PluginValue] = []
        for (index, (text, type)) in zip(texts, signature.arguments).enumerated() {
            do throws(ArgumentProblem) {
                values.append(try value(text, as: type))
            } catch {
                throw CallArgumentError("argument \(index + 1) of \(address) (\(type)): \(error.message)")
            }
        }
        return values
    }

    /// Why one argument's text is not a value of its type.
    struct ArgumentProblem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// `text` as a value of `type`.
    static func value(_ text: String, as type: FunctionType) throws(ArgumentProblem) -> PluginValue {
        switch type {
        case .bool:
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw ArgumentProblem("\(quoted(text)) is not a bool (write true or false)")
            }
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64:
            return try integer(text, as: type)
        case .float:
            return .float(Float(try floatingPoint(text, as: type, maximum: "3.4028235e+38") { Float($0) }))
        case .double:
            return .double(try floatingPoint(text, as: type, maximum: "1.7976931348623157e+308") { Double($0) })
        case .string:
            return .string(text)
        case .bytes:
            return .bytes(try bytes(text))
        case .pointer:
            throw ArgumentProblem("a pointer cannot be given on the command line: an address means nothing in another process")
        case .void:
            throw ArgumentProblem("void is not an argument type")
        }
    }

    /// A decimal integer (`-12`, `+7`) or a hexadecimal one (`0xff`, `-0x80`) within the type's range.
    private static func integer(_ text: String, as type: FunctionType) throws(ArgumentProblem) -> PluginValue {
        let (lower, upper) = integerRange(type)
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && (radix == 16 ? $0.isHexDigit : $0.isNumber) }) else {
            throw ArgumentProblem("\(quoted(text)) is not an integer (decimal such as -12, or hexadecimal such as 0xff)")
        }
        let outOfRange = ArgumentProblem("\(quoted(text)) is out of range \(lower)…\(upper)")
        guard let magnitude = UInt64(digits, radix: radix), magnitude <= (negative ? lower.magnitude : upper) else {
            throw outOfRange
        }
        if type.isSigned {
            return .int(Int64(truncatingIfNeeded: negative ? 0 &- magnitude : magnitude))
        }
        return .uint(negative ? 0 : magnitude)
    }

    /// The smallest and largest value of an integer type.
    private static func integerRange(_ type: FunctionType) -> (lower: Int64, upper: UInt64) {
        switch type {
        case .int8: (Int64(Int8.min), UInt64(Int8.max))
        case .int16: (Int64(Int16.min), UInt64(Int16.max))
        case .int32: (Int64(Int32.min), UInt64(Int32.max))
        case .int64: (Int64.min, UInt64(Int64.max))
        case .uint8: (0, UInt64(UInt8.max))
        case .uint16: (0, UInt64(UInt16.max))
        case .uint32: (0, UInt64(UInt32.max))
        default: (0, UInt64.max)
        }
    }

    /// A decimal or hexadecimal floating-point number, `nan`, `inf` or `-inf` (any case,
    /// also `infinity`), parsed by `parse`; a finite number too large for the type is out of range.
    private static func floatingPoint<Value: BinaryFloatingPoint>(
        _ text: String, as type: FunctionType, maximum: String, _ parse: (String) -> Value?) throws(ArgumentProblem) -> Double {
        let lowered = text.lowercased()
        guard !lowered.hasPrefix("nan("), let value = parse(lowered) else {
            throw ArgumentProblem("\(quoted(text)) is not a number (such as 2.5, -1e-3, 0x1p4, nan, inf or -inf)")
        }
        if value.isInfinite, !lowered.contains("inf") {
            throw ArgumentProblem("\(quoted(text)) is out of range for \(type) (at most ±\(maximum))")
        }
        return Double(value)
    }

    /// Hexadecimal digits (`00ff`, any case, an even count; empty for no bytes), or `@FILE`: the file's bytes.
    private static func bytes(_ text: String) throws(ArgumentProblem) -> [UInt8] {
        if text.hasPrefix("@") {
            let path = WorkingDirectory.absolute(String(text.dropFirst()))
            guard !path.isEmpty else { throw ArgumentProblem("\"@\" needs a file name (@FILE reads the file's bytes)") }
            return try readFile(path)
        }
        guard let bytes = Hexadecimal.bytes(text) else {
            throw ArgumentProblem("\(quoted(text)) is not bytes (an even number of hexadecimal digits such as 00ff, or @FILE)")
        }
        return bytes
    }

    /// Every byte of the regular file at `path`, at most what a call carries
    /// (`PluginValue.maximumBytes`): a FIFO would wait for a writer, a device may never end.
    private static func readFile(_ path: String) throws(ArgumentProblem) -> [UInt8] {
        func cannotRead(_ error: Errno) -> ArgumentProblem { ArgumentProblem("cannot read the file \(quoted(path)): \(error)") }
        // Opened without waiting: a FIFO with no writer would hold the open.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw cannotRead(Errno(rawValue: errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw cannotRead(Errno(rawValue: errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw ArgumentProblem("\(quoted(path)) is not a regular file; @FILE reads a file's bytes")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else {
                if errno == EINTR { continue }
                throw cannotRead(Errno(rawValue: errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= PluginValue.maximumBytes else {
                throw ArgumentProblem("the file \(quoted(path)) has more than \(PluginValue.maximumBytes) bytes, the most a call carries")
            }
        }
    }

    /// `text` in double quotes (the report's escaping shows control characters).
    private static func quoted(_ text: String) -> String {
        "\"\(text)\""
    }
}

/// An argument of `plugboard call` that is not what the function declares: a usage error.
struct CallArgumentError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension FunctionType {
    /// Whether an integer type is signed.
    fileprivate var isSigned: Bool {
        switch self {
        case .int8, .int16, .int32, .int64: true
        default: false
        }
    }
}
