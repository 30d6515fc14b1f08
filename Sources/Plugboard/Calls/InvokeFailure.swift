import CPlugboard

/// Why a plugin's `invoke` failed, as the C ABI returns it: a `PB_ERR_*` status and
/// a sentence naming the function and the cause.
struct InvokeFailure: Error, Sendable, Equatable {
    /// A negative `PB_ERR_*` code.
    let status: pb_status_t
    /// The sentence for the caller's error buffer.
    let message: String

    init(status: pb_status_t, message: String) {
        self.status = status
        self.message = message
    }

    /// The status a call error stands for (host.h lists them), with its sentence.
    init(_ error: PluginCallError) {
        let status = switch error {
        case .malformedAddress, .wrongArgumentCount, .wrongArgumentType, .valueOutOfRange, .invalidArgument,
             .crossesProcesses: PB_ERR_INVALID_ARGUMENT
        case .unknownPlugin, .unknownFunction, .refusedFunction: PB_ERR_NOT_FOUND
        case .invalidResult: PB_ERR_IO
        case .workerEnded: PB_ERR_UNAVAILABLE
        case .nestedTooDeep: PB_ERR_WRONG_STATE
        }
        self.init(status: status, message: error.description)
    }
}
