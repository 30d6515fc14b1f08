import Plugboard

/// What `plugboard call` prints: the result for people, or one JSON document.
enum CallResultFormat {
    /// The result as one human line, nil for `void` (nothing is printed): `true`, `-5`,
    /// `0.9144`, `nan`, `-inf`, a string as it is (the console escapes its control
    /// characters), bytes as lowercase hexadecimal, a pointer as `0x…`.
    static func human(_ value: PluginValue) -> String? {
        value == .void ? nil : text(value)
    }

    /// The value as text: `void`, `true`, `-5`, `0.9144`, `nan`, `inf`, `-inf`, a string as it
    /// is, bytes in hexadecimal, a pointer as `0x…`.
    static func text(_ value: PluginValue) -> String {
        switch value {
        case .void: "void"
        case .bool(let flag): String(flag)
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .float(let number): number.isFinite ? String(number) : text(Double(number))
        case .double(let number): text(number)
        case .string(let text): text
        case .bytes(let bytes): Hexadecimal.lowercase(bytes)
        case .pointer(let address): "0x" + String(address, radix: 16)
        }
    }

    /// `nan`, `inf`, `-inf`, else the number's shortest exact text.
    private static func text(_ number: Double) -> String {
        number.isNaN ? "nan" : number.isInfinite ? (number < 0 ? "-inf" : "inf") : String(number)
    }

    /// The `--json` document of a call.
    struct Document: Encodable {
        /// `plugin-id.function`.
        let function: String
        /// The declared signature, canonical.
        let signature: String
        /// The result's type and value.
        let result: Result
        /// How long the call took, argument conversion included; with `--repeat`, the mean of the calls.
        let nanoseconds: UInt64
        /// How many calls were made, with `--repeat`; absent for one.
        let calls: Int?

        init(address: FunctionAddress, signature: FunctionSignature, value: PluginValue, nanoseconds: UInt64, calls: Int?) {
            function = address.description
            self.signature = signature.description
            result = Result(type: signature.result.rawValue, value: JSONValue(value))
            self.nanoseconds = nanoseconds
            self.calls = calls
        }
    }

    /// `{"type": "double", "value": 0.9144}`; `value` is null for `void`.
    struct Result: Encodable {
        let type: String
        let value: JSONValue
    }

    /// A result value in JSON: a number for an integer and for a finite float or double,
    /// true/false for a bool, null for `void`, and its ``CallResultFormat/text(_:)`` as a string
    /// for the rest: a string, bytes (hexadecimal), a pointer (`0x…`), NaN and ±infinity
    /// (`"nan"`, `"inf"`, `"-inf"`: JSON has no such numbers).
    struct JSONValue: Encodable {
        let value: PluginValue

        init(_ value: PluginValue) {
            self.value = value
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch value {
            case .void: try container.encodeNil()
            case .bool(let flag): try container.encode(flag)
            case .int(let number): try container.encode(number)
            case .uint(let number): try container.encode(number)
            case .float(let number) where number.isFinite: try container.encode(number)
            case .double(let number) where number.isFinite: try container.encode(number)
            default: try container.encode(CallResultFormat.text(value))
            }
        }
    }
}
