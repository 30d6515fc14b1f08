import CPlugboard

extension PluginFunctions {
    /// The most functions one plugin may declare.
    static let maximumCount = 1024

    /// Reads and checks the declarations of `plugin` (`functions`, `function_count`; zero
    /// for a plugin built before ABI 1.2), parsing each signature and preparing its call
    /// once, here on the loading thread. A bad declaration is refused alone, with its
    /// reason; a name declared twice is refused for every declaration of it.
    /// Also returns the largest `pb_function_t.struct_size` declared, for the load report.
    static func read(_ plugin: pb_plugin_t) -> (functions: PluginFunctions, declaredSize: Int?) {
        let count = Int(plugin.function_count)
        guard count > 0 else { return (.none, nil) }
        guard count <= maximumCount else {
            return (PluginFunctions(accepted: [], refused: [FunctionRefusal(
                name: "", reason: "function_count is \(count); the limit is \(maximumCount), so no function of the plugin is used")]), nil)
        }
        guard let array = plugin.functions else {
            return (PluginFunctions(accepted: [], refused: [FunctionRefusal(
                name: "", reason: "functions is NULL but function_count is \(count)")]), nil)
        }
        var accepted: [PluginFunction] = []
        var refused: [FunctionRefusal] = []
        var declaredSize: Int?
        for position in 0..<count {
            let raw = UnsafeRawPointer(array + position)
            declaredSize = max(declaredSize ?? 0, Int(raw.load(as: UInt32.self)))
            switch read(raw, entry: position + 1) {
            case .success(let function): accepted.append(function)
            case .failure(let refusal): refused.append(refusal)
            }
        }
        var uses: [String: Int] = [:]
        for name in accepted.map(\.declaration.name) + refused.map(\.name) where !name.isEmpty { uses[name, default: 0] += 1 }
        let duplicates = Set(uses.filter { $0.value > 1 }.keys)
        for function in accepted where duplicates.contains(function.declaration.name) {
            refused.append(FunctionRefusal(name: function.declaration.name, reason:
                "the name \"\(function.declaration.name)\" is declared \(uses[function.declaration.name] ?? 2) times in the plugin"))
        }
        accepted.removeAll { duplicates.contains($0.declaration.name) }
        return (PluginFunctions(accepted: accepted, refused: refused), declaredSize)
    }

    /// One declaration, entry `entry` (1-based) of the array, checked.
    private static func read(_ raw: UnsafeRawPointer, entry: Int) -> Result<PluginFunction, FunctionRefusal> {
        let declaration: pb_function_t
        switch pb_function_t.read(from: raw) {
        case .success(let value): declaration = value
        case .failure(let error): return .failure(FunctionRefusal(name: "", reason: "entry \(entry) of functions: \(error)"))
        }
        guard let namePointer = declaration.name else {
            return .failure(FunctionRefusal(name: "", reason: "entry \(entry) of functions: the name is NULL"))
        }
        guard let name = String(validatingCString: namePointer) else {
            return .failure(FunctionRefusal(name: "", reason: "entry \(entry) of functions: the name is not valid UTF-8"))
        }
        func refusal(_ reason: String) -> Result<PluginFunction, FunctionRefusal> {
            .failure(FunctionRefusal(name: name, reason: reason))
        }
        if let problem = FunctionName.problem(name) { return refusal(problem) }
        guard let signaturePointer = declaration.signature else { return refusal("the signature is NULL") }
        guard let signatureText = String(validatingCString: signaturePointer) else {
            return refusal("the signature is not valid UTF-8")
        }
        let signature: FunctionSignature
        do {
            signature = try FunctionSignature(parsing: signatureText)
        } catch {
            return refusal("signature \"\(signatureText)\": \(error)")
        }
        guard let function = declaration.function else { return refusal("the function pointer is NULL") }
        var doc = ""
        if let docPointer = declaration.doc {
            guard let text = String(validatingCString: docPointer) else { return refusal("the doc is not valid UTF-8") }
            doc = text
        }
        guard let interface = CallInterface(signature) else {
            return refusal("libffi cannot prepare a call of \(signature)")
        }
        return .success(PluginFunction(
            declaration: FunctionDeclaration(name: name, signature: signature.description, doc: doc),
            signature: signature, function: function, release: declaration.release, interface: interface,
            callbackName: permanentCString("function " + name)))
    }

    /// A copy of `text` as a C string that is never freed (a fault handler may read it at any time).
    private static func permanentCString(_ text: String) -> UnsafePointer<CChar> {
        let bytes = Array(text.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        copy.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(copy)
    }
}
