import CPlugboard

/// A C ABI struct that starts with its own `struct_size` and only grows at the end.
///
/// The host reads only the bytes the plugin's size covers and treats the rest
/// as zero (NULL slots), which is how an older plugin keeps working in a newer host.
protocol ABIStruct {
    /// The struct's name in the header, for error messages.
    static var cName: String { get }
    /// The size of the struct in the ABI version that introduced it, the smallest a plugin may declare.
    static var minimumSize: Int { get }
    /// An all-zero value.
    init()
}

extension ABIStruct {
    /// A struct no minor version has grown is exactly its current size. When a
    /// minor version appends fields to one, that struct overrides this with its first size.
    static var minimumSize: Int { MemoryLayout<Self>.size }

    /// The struct as the plugin declared it, zero-extended, or an error naming the size problem.
    static func read(from pointer: UnsafeRawPointer) -> Result<Self, ABIStructError> {
        let declared = Int(pointer.load(as: UInt32.self))
        guard declared >= minimumSize else {
            return .failure(ABIStructError(cName: cName, declared: declared, minimum: minimumSize))
        }
        var value = Self()
        withUnsafeMutableBytes(of: &value) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: min(declared, target.count)))
        }
        return .success(value)
    }
}

/// A struct whose declared `struct_size` is smaller than its first ABI version's size.
struct ABIStructError: Error, CustomStringConvertible {
    let cName: String
    let declared: Int
    let minimum: Int

    var description: String {
        "\(cName).struct_size is \(declared); it must be at least \(minimum)"
    }
}

extension pb_entry_t: ABIStruct { static var cName: String { "pb_entry_t" } }
extension pb_plugin_t: ABIStruct {
    static var cName: String { "pb_plugin_t" }
    /// ABI 1.2 appended `functions` and `function_count`: the 1.0 struct ends where they start.
    static var minimumSize: Int { MemoryLayout<pb_plugin_t>.offset(of: \.functions) ?? MemoryLayout<pb_plugin_t>.size }
}
extension pb_launch_t: ABIStruct { static var cName: String { "pb_launch_t" } }
extension pb_open_url_t: ABIStruct { static var cName: String { "pb_open_url_t" } }
extension pb_user_activity_t: ABIStruct { static var cName: String { "pb_user_activity_t" } }
extension pb_remote_notifications_t: ABIStruct { static var cName: String { "pb_remote_notifications_t" } }
extension pb_memory_t: ABIStruct { static var cName: String { "pb_memory_t" } }
extension pb_protected_data_t: ABIStruct { static var cName: String { "pb_protected_data_t" } }
extension pb_app_state_t: ABIStruct { static var cName: String { "pb_app_state_t" } }
extension pb_termination_t: ABIStruct { static var cName: String { "pb_termination_t" } }
extension pb_function_t: ABIStruct { static var cName: String { "pb_function_t" } }
extension pb_saved_state_t: ABIStruct { static var cName: String { "pb_saved_state_t" } }
