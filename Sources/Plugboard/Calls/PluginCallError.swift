/// Why a call of a plugin function was not made, or its result could not be taken:
/// each case names the function and the cause.
public enum PluginCallError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The text is not `plugin-id.function`.
    case malformedAddress(String, reason: String)
    /// No registered plugin has the address's id.
    case unknownPlugin(FunctionAddress)
    /// The plugin declares no function of that name.
    case unknownFunction(FunctionAddress)
    /// The plugin declared the function, and its declaration was refused at load: it is never called.
    case refusedFunction(FunctionAddress, reason: String)
    /// The call has another number of arguments than the signature.
    case wrongArgumentCount(FunctionAddress, expected: Int, given: Int)
    /// Argument `position` (1-based) is of a kind the declared type does not take.
    case wrongArgumentType(FunctionAddress, position: Int, expected: FunctionType, given: String)
    /// Argument `position` (1-based) does not fit the declared type (`300` for an `int8`).
    case valueOutOfRange(FunctionAddress, position: Int, expected: FunctionType, value: String)
    /// Argument `position` (1-based) cannot be passed as C (a string with a NUL character inside).
    case invalidArgument(FunctionAddress, position: Int, reason: String)
    /// The function returned what its type does not allow (a NULL or non-UTF-8 string, NULL bytes with a size).
    case invalidResult(FunctionAddress, reason: String)
    /// The plugin's worker ended during the call; the sentence names the plugin, the
    /// function and the library (`… crashed with SIGSEGV in function crash (…)`).
    case workerEnded(FunctionAddress, sentence: String)
    /// A `pointer` argument or result would cross between two processes (a caller and a
    /// plugin in different processes), where its address means nothing.
    case crossesProcesses(FunctionAddress, reason: String)
    /// Invocations nested deeper than the limit (``FunctionInvoker/depthLimit``), a cycle most likely.
    case nestedTooDeep(FunctionAddress, limit: Int)

    /// The function the error is about; nil for a malformed address, which names none.
    var address: FunctionAddress? {
        switch self {
        case .malformedAddress: nil
        case .unknownPlugin(let address), .unknownFunction(let address): address
        case .refusedFunction(let address, _), .invalidResult(let address, _), .workerEnded(let address, _),
             .crossesProcesses(let address, _):
            address
        case .wrongArgumentCount(let address, _, _): address
        case .wrongArgumentType(let address, _, _, _), .valueOutOfRange(let address, _, _, _): address
        case .invalidArgument(let address, _, _): address
        case .nestedTooDeep(let address, _): address
        }
    }

    /// One sentence naming the function and the cause.
    public var description: String {
        switch self {
        case .malformedAddress(let text, let reason):
            "malformed function address \"\(text)\": \(reason)"
        case .unknownPlugin(let address):
            "\(address): no plugin \(address.plugin) is loaded"
        case .unknownFunction(let address):
            "\(address): plugin \(address.plugin) declares no function \"\(address.function)\""
        case .refusedFunction(let address, let reason):
            "\(address): the declaration was refused when the plugin loaded, so it is never called: \(reason)"
        case .wrongArgumentCount(let address, let expected, let given):
            "\(address): takes \(expected) argument\(expected == 1 ? "" : "s"), \(given) given"
        case .wrongArgumentType(let address, let position, let expected, let given):
            "\(address): argument \(position) must be \(expected), not a \(given)"
        case .valueOutOfRange(let address, let position, let expected, let value):
            "\(address): argument \(position), \(value), is out of range for \(expected)"
        case .invalidArgument(let address, let position, let reason):
            "\(address): argument \(position): \(reason)"
        case .invalidResult(let address, let reason):
            "\(address): invalid result: \(reason)"
        case .workerEnded(let address, let sentence):
            "\(address): the call did not complete: \(sentence)"
        case .crossesProcesses(let address, let reason):
            "\(address): \(reason), and a pointer cannot cross between processes"
        case .nestedTooDeep(let address, let limit):
            "\(address): invocations are nested more than \(limit) deep (a plugin function that invokes"
                + " a function that invokes it again?); refused"
        }
    }
}
