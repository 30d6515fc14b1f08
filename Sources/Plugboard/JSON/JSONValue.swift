#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value in memory, for the inputs whose values the host reads (the access policy file
/// and its sandbox grants, the lines of an event script).
///
/// Text is first checked with ``JSONSyntax`` (strict: no key twice, no trailing comma), then
/// read with `JSONDecoder` and written with `JSONEncoder`: FoundationEssentials' coders, which
/// the plugin worker links anyway, rather than Foundation's `JSONSerialization`, which would
/// bring CoreFoundation and ICU into it.
enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number that fits in 64 bits, kept exactly (`3`, `3.0` and `3e0` alike).
    case integer(Int64)
    /// Any other number, as the `Double` nearest to it.
    case number(Double)
    /// A string, unescaped.
    case string(String)
    /// An array, its elements in order.
    case array([JSONValue])
    /// An object, its members by key.
    case object([String: JSONValue])

    /// The one JSON value `json` holds. The decoder is not strict (it lets a trailing comma through):
    /// check the text with ``JSONSyntax`` first, and then the one failure left is a number.
    init(json: some Collection<UInt8>) throws(JSONValueError) {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: Data(json))
        } catch {
            // The decoder's own text says only "The given data was not valid JSON".
            throw JSONValueError()
        }
    }

    /// The text, when the value is a string.
    var asString: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The members, when the value is an object.
    var asObject: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// The elements, when the value is an array.
    var asArray: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The texts, when the value is an array of strings only.
    var asStrings: [String]? {
        guard let elements = asArray else { return nil }
        var texts: [String] = []
        for element in elements {
            guard let text = element.asString else { return nil }
            texts.append(text)
        }
        return texts
    }

    /// The number, when it is a whole one that fits in an `Int`.
    var asWholeNumber: Int? {
        if case .integer(let number) = self { Int(exactly: number) } else { nil }
    }

    /// The value as compact JSON text, keys sorted, `/` unescaped.
    var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Cannot fail: a decoded value holds no infinite or NaN number, the one thing the encoder refuses.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// Why JSON text that ``JSONSyntax`` accepts cannot be read as a ``JSONValue``: it holds a number
/// the decoder cannot hold as a 64-bit floating-point number.
struct JSONValueError: Error, CustomStringConvertible {
    var description: String {
        "it holds a number out of the range of a 64-bit floating-point number (such as 1e400)"
    }
}

extension JSONValue: Codable {
    /// Reads whichever kind of value the decoder holds.
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Writes the value as its kind.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
