import CFaultReporter

/// A plugin function found by ``FunctionInvoker/resolve(_:caller:)``: its declaration and
/// where a call to it runs, so calls made through it look nothing up. A class: a call
/// passes it on with one retain, not a copy of its strings and arrays.
final class ResolvedFunction: @unchecked Sendable {
    /// Where a call runs.
    enum Place {
        /// In this process: the checked function and its plugin's fault label.
        case here(PluginFunction, label: UnsafePointer<pbf_label_t>)
        /// In a worker: the plugin's number there and the function's index among its accepted declarations.
        case worker(WorkerConnection, plugin: UInt32, function: UInt32)
    }

    /// The function's address.
    let address: FunctionAddress
    /// The declaration as the plugin made it.
    let declaration: FunctionDeclaration
    /// The parsed signature arguments are checked against.
    let signature: FunctionSignature
    /// Where a call runs.
    let place: Place
    /// In this process: the function, unretained (``place`` holds it), and its plugin's fault
    /// label, so that a call borrows them without reference counting; nil in a worker.
    let here: (code: Unmanaged<PluginFunction>, label: UnsafePointer<pbf_label_t>)?

    init(address: FunctionAddress, declaration: FunctionDeclaration, signature: FunctionSignature, place: Place) {
        self.address = address
        self.declaration = declaration
        self.signature = signature
        self.place = place
        here = switch place {
        case .here(let function, let label): (.passUnretained(function), label)
        case .worker: nil
        }
    }
}
