/// What a plugin's callback answered, as the worker reports it in `answer`.
///
/// Wire format: a `u8` kind (the raw values below), then a `u8` value that is
/// the answer for `.bool` and 0 for every other kind; since 1.4, `.state` is followed
/// by its `bytes` and `.refused` by its `string`.
public enum CallAnswer: Sendable, Equatable {
    /// A callback without an answer returned.
    case returned
    /// A callback answered true or false.
    case bool(Bool)
    /// The plugin has no callback for this event (a NULL vtable or slot).
    case notTakingPart
    /// A remote notification callback returned; its `completion` comes later.
    case pending
    /// `save_state` gave these bytes (since 1.4).
    case state([UInt8])
    /// `save_state` or `restore_state` failed, for the reason given (since 1.4).
    case refused(String)

    /// The wire number of each kind.
    public enum Kind: UInt8, Sendable, CaseIterable {
        /// `.returned`.
        case returned = 0
        /// `.bool`.
        case bool = 1
        /// `.notTakingPart`.
        case notTakingPart = 2
        /// `.pending`.
        case pending = 3
        /// `.state` (since 1.4).
        case state = 4
        /// `.refused` (since 1.4).
        case refused = 5
    }

    /// The answer's wire kind.
    public var kind: Kind {
        switch self {
        case .returned: .returned
        case .bool: .bool
        case .notTakingPart: .notTakingPart
        case .pending: .pending
        case .state: .state
        case .refused: .refused
        }
    }

    /// Appends kind and value.
    func encode(into encoder: inout WireEncoder) {
        encoder.append(kind.rawValue)
        if case .bool(let value) = self { encoder.append(value) } else { encoder.append(false) }
        switch self {
        case .state(let bytes): encoder.append(bytes: bytes)
        case .refused(let reason): encoder.append(string: reason)
        case .returned, .bool, .notTakingPart, .pending: break
        }
    }

    /// Reads kind and value; a value other than 0 beside a kind that has none is malformed.
    static func decode(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> CallAnswer {
        let raw = try decoder.readUInt8("answer.kind")
        guard let kind = Kind(rawValue: raw) else {
            throw .malformed(field: "answer.kind", cause: .invalidValue(UInt64(raw)))
        }
        let value = try decoder.readBool("answer.value")
        if kind != .bool && value {
            throw .malformed(field: "answer.value", cause: .invalidValue(1))
        }
        return switch kind {
        case .returned: .returned
        case .bool: .bool(value)
        case .notTakingPart: .notTakingPart
        case .pending: .pending
        case .state: .state(try decoder.readBytes("answer.state"))
        case .refused: .refused(try decoder.readString("answer.reason"))
        }
    }
}
