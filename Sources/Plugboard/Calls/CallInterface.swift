import CFFI
import CPlugboard

/// libffi's call interface for one signature, and the layout of a call's frame: the
/// `ffi_cif`, its parameter type array and, for a `bytes` result, the `pb_bytes_t`
/// struct type, on the heap (the cif points into them), prepared once (when the plugin
/// loads, or a call is prepared), and only read by calls afterwards (`ffi_prep_cif` may
/// write into the types it is given).
final class CallInterface: @unchecked Sendable {
    /// The C parameters, in order: one per argument, two for `bytes` (data, size).
    let parameterCount: Int
    /// The C parameter each argument starts at, in argument order.
    let firstParameter: [Int]
    /// Where a call's result goes in its frame: after one 8-byte slot per C parameter.
    /// It gets at least `ffi_arg` (libffi widens narrow integer results to it).
    let resultOffset: Int
    /// Where the parameter pointer array starts in a call's frame, after the result.
    let pointersOffset: Int
    /// The frame's size before the payload (the copies of string and buffer arguments), 16-byte aligned.
    let frameSize: Int
    /// Whether an argument is a string or a buffer, copied into the frame's payload.
    let hasPayload: Bool
    private let cif: UnsafeMutablePointer<ffi_cif>
    private let parameterTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    /// `pb_bytes_t` as libffi sees it, and its NULL-terminated element list; nil unless the result is `bytes`.
    private let bytesType: (type: UnsafeMutablePointer<ffi_type>, elements: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>)?

    /// Prepares the call of `signature`; nil when libffi refuses it (`ffi_prep_cif` failed).
    init?(_ signature: FunctionSignature) {
        let types = signature.arguments.flatMap(\.cParameterTypes)
        parameterCount = types.count
        var next = 0
        firstParameter = signature.arguments.map { argument in
            defer { next += argument.cParameterTypes.count }
            return next
        }
        parameterTypes = .allocate(capacity: max(types.count, 1))
        parameterTypes.initialize(from: types.map(Optional.some), count: types.count)
        cif = .allocate(capacity: 1)
        let resultType: UnsafeMutablePointer<ffi_type>
        if let scalar = signature.result.scalarFFIType {
            bytesType = nil
            resultType = scalar
        } else {
            let elements = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: 3)
            elements.initialize(from: [cffi_pointer(), cffi_size(), nil], count: 3)
            let type = UnsafeMutablePointer<ffi_type>.allocate(capacity: 1)
            type.initialize(to: ffi_type(size: 0, alignment: 0, type: UInt16(FFI_TYPE_STRUCT), elements: elements))
            bytesType = (type, elements)
            resultType = type
        }
        let resultSize = max(MemoryLayout<ffi_arg>.size, MemoryLayout<pb_bytes_t>.size)
        resultOffset = types.count * 8
        pointersOffset = resultOffset + ((resultSize + 15) & ~15)
        frameSize = (pointersOffset + max(types.count, 1) * MemoryLayout<UnsafeMutableRawPointer?>.stride + 15) & ~15
        hasPayload = signature.arguments.contains { $0 == .string || $0 == .bytes }
        guard ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(types.count), resultType, parameterTypes) == FFI_OK else { return nil }
    }

    deinit {
        cif.deallocate()
        parameterTypes.deallocate()
        if let bytesType {
            bytesType.type.deallocate()
            bytesType.elements.deallocate()
        }
    }

    /// Calls `function` with the arguments written in `frame` (laid out as this interface says)
    /// and leaves the result in the frame, at ``resultOffset``.
    @inline(__always)
    func call(_ function: @convention(c) () -> Void, frame: UnsafeMutableRawPointer) {
        ffi_call(cif, function, frame + resultOffset, (frame + pointersOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self))
    }
}

