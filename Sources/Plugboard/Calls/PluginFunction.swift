import CFaultReporter
import CPlugboard

/// A function a loaded plugin declared, checked and ready to call in this
/// process: the parsed signature, the prepared libffi call and the plugin's pointers.
struct PluginFunction: @unchecked Sendable {
    /// What reports show.
    let declaration: FunctionDeclaration
    /// The parsed signature the arguments are checked against.
    let signature: FunctionSignature
    /// The C function.
    let function: @convention(c) () -> Void
    /// Frees a returned string or buffer, or nil when results stay the plugin's.
    let release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    /// The libffi call interface, prepared at load.
    let prepared: PreparedCall
    /// "function NAME", what a fault or timeout message says was running; never freed.
    let callbackName: UnsafePointer<CChar>
}
