import PlugboardWorkerProtocol

extension PluginValue {
    /// The value as the worker protocol carries it.
    var wire: FunctionValue {
        switch self {
        case .void: .void
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .uint(let value): .uint(value)
        case .float(let value): .float(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .bytes(let value): .bytes(value)
        case .pointer(let value): .pointer(UInt64(value))
        }
    }

    /// The value the worker protocol carried.
    init(wire: FunctionValue) {
        self = switch wire {
        case .void: .void
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .uint(let value): .uint(value)
        case .float(let value): .float(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .bytes(let value): .bytes(value)
        case .pointer(let value): .pointer(UInt(truncatingIfNeeded: value))
        }
    }
}
