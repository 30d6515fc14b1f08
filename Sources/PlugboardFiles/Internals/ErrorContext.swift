import SystemPackage

/// The operation and name an error will be reported against, captured once
/// per name so each failure point only states the cause.
struct ErrorContext: Sendable {
    let operation: FileFacadeError.Operation
    let directory: AppDirectory?
    let name: String

    func error(_ reason: FileFacadeError.Reason, _ systemError: Errno? = nil) -> FileFacadeError {
        FileFacadeError(
            operation: operation, directory: directory, name: name,
            reason: reason, systemError: systemError)
    }

    func error(_ systemError: Errno) -> FileFacadeError {
        error(FileFacadeError.Reason(systemError), systemError)
    }

    /// Runs `body`, reporting a system failure against this context.
    func attempt<Result>(_ body: () throws(Errno) -> Result) throws(FileFacadeError) -> Result {
        do {
            return try body()
        } catch {
            throw self.error(error)
        }
    }
}
