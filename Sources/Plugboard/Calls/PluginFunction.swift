import CFaultReporter
import CPlugboard

/// A function a loaded plugin declared, checked and ready to call in this
/// process: the parsed signature, the prepared libffi call and the plugin's pointers.
/// A class, so a resolved handle holds it with one reference (a call copies nothing).
/// Immutable after load.
final class PluginFunction: @unchecked Sendable {
    /// What reports show.
    let declaration: FunctionDeclaration
    /// The parsed signature the arguments are checked against.
    let signature: FunctionSignature
    /// The C function.
    let function: @convention(c) () -> Void
    /// Frees a returned string or buffer, or nil when results stay the plugin's.
    let release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    /// The libffi call interface and the frame layout, prepared at load.
    let interface: CallInterface
    /// "function NAME", what a fault or timeout message says was running; never freed.
    let callbackName: UnsafePointer<CChar>

    init(declaration: FunctionDeclaration, signature: FunctionSignature, function: @escaping @convention(c) () -> Void,
         release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, interface: CallInterface, callbackName: UnsafePointer<CChar>) {
        self.declaration = declaration
        self.signature = signature
        self.function = function
        self.release = release
        self.interface = interface
        self.callbackName = callbackName
    }
}
