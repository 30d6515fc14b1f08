import PlugboardPluginAPI

/// A function a Swift plugin offers to be called by name (ABI 1.2, include/plugboard/functions.h):
/// a typed Swift closure, with its signature derived from the closure's types.
///
/// ```swift
/// PluginFunction("convert", doc: "Converts VALUE from unit FROM to unit TO") {
///     (from: String, to: String, value: Double) -> Double in try units.convert(value, from, to)
/// }
/// ```
///
/// declares `double (string, string, double)`. The types are those of ``PluginFunctionArgument``
/// and ``PluginFunctionResult``; a closure returning nothing is `void`. A plugin lists its functions
/// in ``FunctionsPlugin/functions``.
///
/// This is a typed wrapper, not a `@convention(c)` function: a C function pointer cannot carry a
/// Swift closure, so the SDK makes one with libffi (a closure trampoline per function, made when
/// the plugin registers and freed in `deinit`). A call then runs libffi's trampoline, decodes the
/// C arguments into Swift values (a `String` or `[UInt8]` argument is copied) and encodes the
/// result (a `String` or `[UInt8]` result is copied into a `malloc`'d buffer, released by the
/// host with `free`). Measured on x86_64, release build, `double (double, int32)` called through its
/// C function pointer: 100–170 ns a call, against 4–6 ns for the C++ and Rust SDKs' wrappers; so a
/// function that is called in a tight loop belongs in C.
///
/// A closure that throws is logged at error level for the plugin (`error in function convert:
/// <error>; answered NaN`) and answered with its result type's fail value: `false`, `0`, NaN,
/// NULL, `""`, empty bytes, nothing. A trap is a crash, as in every callback. The closure may be
/// called from any thread (functions.h), hence `@Sendable`.
public struct PluginFunction: Sendable {
    /// The function's name, `[a-z_][a-z0-9_]*`, unique in the plugin (the host refuses a repeat).
    public let name: String
    /// What it does; "" for none.
    public let doc: String
    /// The signature derived from the closure's types, e.g. `double (string, string, double)`.
    public let signature: String
    /// The arguments' types, in order.
    let argumentTypes: [FunctionType]
    /// The result's type.
    let resultType: FunctionType
    /// Decodes the C arguments, calls the closure and writes the C result, or throws.
    let invoke: @Sendable (UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutableRawPointer) throws -> Void
    /// Writes the fail value of the result type.
    let writeFailValue: @Sendable (UnsafeMutableRawPointer) -> Void
    /// The fail value as the log line names it.
    let failValueText: String

    /// A function named `name` that runs `body`, with a result.
    public init<each Argument: PluginFunctionArgument, Result: PluginFunctionResult>(
        _ name: String, doc: String = "", _ body: @escaping @Sendable (repeat each Argument) throws -> Result
    ) {
        var arguments: [FunctionType] = []
        for type in repeat (each Argument).self { arguments.append(type.pluginFunctionType) }
        self.name = name
        self.doc = doc
        signature = "\(Result.pluginFunctionType.rawValue) (\(arguments.map(\.rawValue).joined(separator: ", ")))"
        argumentTypes = arguments
        resultType = Result.pluginFunctionType
        invoke = { parameters, result in
            var index = 0
            func next<Value: PluginFunctionArgument>(_ type: Value.Type) -> Value {
                defer { index += Value.pluginFunctionType.cParameterCount }
                return Value(cParameters: parameters, at: index)
            }
            try body(repeat next((each Argument).self)).writeCResult(to: result)
        }
        writeFailValue = { Result.writeCFailValue(to: $0) }
        failValueText = Result.failValueText
    }

    /// A function named `name` that runs `body`, with no result (`void`).
    public init<each Argument: PluginFunctionArgument>(
        _ name: String, doc: String = "", _ body: @escaping @Sendable (repeat each Argument) throws -> Void
    ) {
        self.init(name, doc: doc) { (argument: repeat each Argument) throws -> NoResult in
            try body(repeat each argument)
            return NoResult()
        }
    }
}
