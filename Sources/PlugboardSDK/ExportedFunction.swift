import CFFI
import CPlugboard
import Glibc
import Logging
import PlugboardPluginAPI

/// One ``PluginFunction`` as a C function for the host: a libffi closure whose code calls the Swift
/// closure, with its `ffi_cif` and the strings of its declaration. Made in `register_plugins`,
/// kept by the plugin's ``PluginContext`` and freed with it in `deinit` (after which the host
/// never calls the function). Read-only once made, so callable from any thread.
final class ExportedFunction: @unchecked Sendable {
    let function: PluginFunction
    let log: Logger
    private let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
    private let parameterCount: Int
    private let parameterTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    /// `pb_bytes_t` as libffi sees it, and its NULL-terminated element list.
    private let bytesType = UnsafeMutablePointer<ffi_type>.allocate(capacity: 1)
    private let bytesElements = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: 3)
    private let closure: UnsafeMutableRawPointer
    /// The closure's executable address: the C function the host calls.
    private let code: UnsafeMutableRawPointer
    private let name, signature, doc: UnsafeMutablePointer<CChar>?

    /// The C function of `function`, logging through `log`; nil when libffi cannot make it (logged).
    static func make(_ function: PluginFunction, log: Logger) -> ExportedFunction? {
        var code: UnsafeMutableRawPointer?
        guard let closure = ffi_closure_alloc(MemoryLayout<ffi_closure>.size, &code), let code else {
            log.error("function \(function.name) not offered: libffi could not allocate a closure")
            return nil
        }
        let exported = ExportedFunction(function, log: log, closure: closure, code: code)
        guard exported.prepare() else {
            log.error("function \(function.name) not offered: libffi cannot make a C function of \(function.signature)")
            return nil
        }
        return exported
    }

    private init(_ function: PluginFunction, log: Logger, closure: UnsafeMutableRawPointer, code: UnsafeMutableRawPointer) {
        self.function = function
        self.log = log
        self.closure = closure
        self.code = code
        bytesElements.initialize(from: [cffi_pointer(), cffi_size(), nil], count: 3)
        bytesType.initialize(to: ffi_type(size: 0, alignment: 0, type: UInt16(FFI_TYPE_STRUCT), elements: bytesElements))
        let types: [UnsafeMutablePointer<ffi_type>?] =
            function.argumentTypes.flatMap(\.cParameterTypes)
        parameterCount = types.count
        parameterTypes = .allocate(capacity: max(types.count, 1))
        parameterTypes.initialize(from: types, count: types.count)
        name = strdup(function.name)
        signature = strdup(function.signature)
        doc = strdup(function.doc)
    }

    /// Prepares the call interface and points the closure at ``run`` with this object.
    private func prepare() -> Bool {
        let result = function.resultType.scalarFFIType ?? bytesType
        return ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(parameterCount), result, parameterTypes) == FFI_OK
            && ffi_prep_closure_loc(closure.assumingMemoryBound(to: ffi_closure.self), cif, Self.run,
                                    Unmanaged.passUnretained(self).toOpaque(), code) == FFI_OK
    }

    deinit {
        ffi_closure_free(closure)
        cif.deallocate()
        parameterTypes.deallocate()
        bytesType.deallocate()
        bytesElements.deallocate()
        free(name)
        free(signature)
        free(doc)
    }

    /// The C declaration; its strings live as long as this object.
    var declaration: pb_function_t {
        var declaration = pb_function_t()
        declaration.struct_size = UInt32(MemoryLayout<pb_function_t>.size)
        declaration.name = UnsafePointer(name)
        declaration.signature = UnsafePointer(signature)
        declaration.doc = UnsafePointer(doc)
        declaration.function = unsafeBitCast(code, to: (@convention(c) () -> Void).self)
        declaration.release = [.string, .bytes].contains(function.resultType) ? { free($0) } : nil
        return declaration
    }

    /// libffi's handler of every closure: runs the function whose object is `data`.
    private static let run: @convention(c) (UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?,
                                            UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutableRawPointer?) -> Void = {
        _, result, arguments, data in
        guard let result, let arguments, let data else { return }
        let exported = Unmanaged<ExportedFunction>.fromOpaque(data).takeUnretainedValue()
        do {
            try exported.function.invoke(arguments, result)
        } catch {
            exported.function.writeFailValue(result)
            exported.log.error("error in function \(exported.function.name): \(error); answered \(exported.function.failValueText)")
        }
    }
}
