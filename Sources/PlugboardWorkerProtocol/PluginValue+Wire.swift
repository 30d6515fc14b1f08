import PlugboardPluginAPI

/// A plugin function's argument or result (``PluginValue``, from PlugboardPluginAPI) as
/// `function-call`, `function-result`, `invoke` and `invoke-reply` carry it (since 1.3):
/// a `u8` tag, then the value.
///
/// Wire format: tag `0` void (nothing follows), `1` bool (`bool`), `2` signed
/// integer (`i64`), `3` unsigned integer (`u64`), `4` float (`u32`, the IEEE 754
/// bits), `5` double (`u64`, the bits), `6` string (`string`), `7` bytes
/// (`bytes`), `8` pointer (`u64`, the address). Any other tag is malformed.
extension PluginValue {
    /// Appends the tag and the value.
    func encode(into encoder: inout WireEncoder) {
        switch self {
        case .void: encoder.append(UInt8(0))
        case .bool(let value): encoder.append(UInt8(1)); encoder.append(value)
        case .int(let value): encoder.append(UInt8(2)); encoder.append(value)
        case .uint(let value): encoder.append(UInt8(3)); encoder.append(value)
        case .float(let value): encoder.append(UInt8(4)); encoder.append(value.bitPattern)
        case .double(let value): encoder.append(UInt8(5)); encoder.append(value.bitPattern)
        case .string(let value): encoder.append(UInt8(6)); encoder.append(string: value)
        case .bytes(let value): encoder.append(UInt8(7)); encoder.append(bytes: value)
        case .pointer(let value): encoder.append(UInt8(8)); encoder.append(UInt64(value))
        }
    }

    /// Reads a tag and its value; `field` names the value in errors.
    static func decode(from decoder: inout WireDecoder, _ field: StaticString) throws(WorkerProtocolError) -> PluginValue {
        let tag = try decoder.readUInt8(field)
        switch tag {
        case 0: return .void
        case 1: return .bool(try decoder.readBool(field))
        case 2: return .int(try decoder.readInt64(field))
        case 3: return .uint(try decoder.readUInt64(field))
        case 4: return .float(Float(bitPattern: try decoder.readUInt32(field)))
        case 5: return .double(Double(bitPattern: try decoder.readUInt64(field)))
        case 6: return .string(try decoder.readString(field))
        case 7: return .bytes(try decoder.readBytes(field))
        case 8: return .pointer(UInt(truncatingIfNeeded: try decoder.readUInt64(field)))
        default: throw .malformed(field: "\(field)", cause: .invalidValue(UInt64(tag)))
        }
    }

    /// Appends a `u32` count, then each value.
    static func encode(_ values: [PluginValue], into encoder: inout WireEncoder) {
        encoder.append(UInt32(values.count))
        for value in values { value.encode(into: &encoder) }
    }

    /// The most values a list may hold: the most arguments a plugin function takes.
    public static let maximumListCount = 32

    /// Reads a `u32` count, then that many values (a count above ``maximumListCount`` or that the
    /// payload cannot hold is malformed before anything is reserved).
    static func decodeList(from decoder: inout WireDecoder, _ field: StaticString) throws(WorkerProtocolError) -> [PluginValue] {
        let count = Int(try decoder.readUInt32(field))
        guard count <= maximumListCount else { throw .malformed(field: "\(field)", cause: .invalidValue(UInt64(count))) }
        guard count <= decoder.remaining else {
            throw .malformed(field: "\(field)", cause: .runsPastEnd(needed: count, available: decoder.remaining))
        }
        var values: [PluginValue] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try decode(from: &decoder, field)) }
        return values
    }
}
