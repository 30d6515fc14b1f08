import Plugboard

/// What `plugboard call` prints: the result for people, or one JSON document.
enum CallResultFormat {
    /// The result as one human line, nil for `void` (nothing is printed): `true`, `-5`,
    /// `0.9144`, `nan`, `-inf`, a string as it is (the console escapes its control
    /// characters), bytes as lowercase hexadecimal, a pointer as `0x…`.
    static func human(_ value: PluginValue) -> String? {
        switch value {
        case .void: nil
        case .string(let text): text
        case .bytes(let bytes): hex(bytes)
        default: JSONValue(value).text
        }
    }

    /// Bytes as lowercase hexadecimal digits, two per byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The `--json` document of a call.
    struct Document: Encodable {
        /// `plugin-id.function`.
        let function: String
        /// The declared signature, canonical.
        let signature: String
        /// The result's type and value.
        let result: Result
        /// How long the call took, argument conversion included.
        let nanoseconds: UInt64

        init(address: FunctionAddress, signature: FunctionSignature, value: PluginValue, nanoseconds: UInt64) {
            function = address.description
            self.signature = signature.description
            result = Result(type: signature.result.rawValue, value: JSONValue(value))
            self.nanoseconds = nanoseconds
        }
    }

    /// `{"type": "double", "value": 0.9144}`; `value` is null for `void`.
    struct Result: Encodable {
        let type: String
        let value: JSONValue
    }

    /// A result value in JSON: a number for bool-free numbers, `true`/`false`, a string for a
    /// string, for bytes (hexadecimal), a pointer (`0x…`) and for a float or double that JSON
    /// has no number for (`"nan"`, `"inf"`, `"-inf"`); null for `void`.
    struct JSONValue: Encodable {
        let value: PluginValue

        init(_ value: PluginValue) {
            self.value = value
        }

        /// The value as text, the human form of every kind but strings and bytes.
        var text: String {
            switch value {
            case .void: "void"
            case .bool(let flag): String(flag)
            case .int(let number): String(number)
            case .uint(let number): String(number)
            case .float(let number): Self.text(Double(number), exact: String(number))
            case .double(let number): Self.text(number, exact: String(number))
            case .string(let text): text
            case .bytes(let bytes): CallResultFormat.hex(bytes)
            case .pointer(let address): "0x" + String(address, radix: 16)
            }
        }

        /// `nan`, `inf`, `-inf`, else the number's shortest exact text.
        private static func text(_ number: Double, exact: String) -> String {
            number.isNaN ? "nan" : number.isInfinite ? (number < 0 ? "-inf" : "inf") : exact
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
            default: try container.encode(text)
            }
        }
    }
}
