import CPlugboard
import Synchronization

/// A C ABI struct that starts with its own `struct_size` and only grows at the end.
///
/// The host reads only the bytes the plugin's size covers and treats the rest
/// as zero (NULL slots), which is how an older plugin keeps working in a newer host.
protocol ABIStruct {
    /// Which struct it is (its name in the header, for error messages and the library's ABI facts).
    static var structName: ABIStructName { get }
    /// The size of the struct in the ABI version that introduced it, the smallest a plugin may declare.
    static var minimumSize: Int { get }
    /// An all-zero value.
    init()
}

extension ABIStruct {
    /// The struct's name in the header.
    static var cName: String { structName.cName }

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

extension pb_entry_t: ABIStruct { static var structName: ABIStructName { .entry } }
extension pb_plugin_t: ABIStruct {
    static var structName: ABIStructName { .plugin }
    /// ABI 1.2 appended `functions` and `function_count`: the 1.0 struct ends where they start.
    static var minimumSize: Int { MemoryLayout<pb_plugin_t>.offset(of: \.functions) ?? MemoryLayout<pb_plugin_t>.size }
}
extension pb_launch_t: ABIStruct { static var structName: ABIStructName { .launch } }
extension pb_open_url_t: ABIStruct { static var structName: ABIStructName { .openURL } }
extension pb_user_activity_t: ABIStruct { static var structName: ABIStructName { .userActivity } }
extension pb_remote_notifications_t: ABIStruct { static var structName: ABIStructName { .remoteNotifications } }
extension pb_memory_t: ABIStruct { static var structName: ABIStructName { .memory } }
extension pb_protected_data_t: ABIStruct { static var structName: ABIStructName { .protectedData } }
extension pb_app_state_t: ABIStruct { static var structName: ABIStructName { .appState } }
extension pb_termination_t: ABIStruct { static var structName: ABIStructName { .termination } }
extension pb_function_t: ABIStruct { static var structName: ABIStructName { .function } }
extension pb_saved_state_t: ABIStruct { static var structName: ABIStructName { .savedState } }

/// The C ABI structs a library hands the host, in byte order of their C names, so that the sizes a
/// library declared are kept and reported with no name compared or hashed (``DeclaredStructSizes``,
/// which has one slot per case: a new case needs one more, as `LibraryABITests` checks).
enum ABIStructName: Int, CaseIterable, Sendable {
    case appState, entry, function, launch, memory, openURL, plugin, protectedData, remoteNotifications, savedState,
         termination, userActivity

    /// The struct's name in the header.
    var cName: String {
        switch self {
        case .appState: "pb_app_state_t"
        case .entry: "pb_entry_t"
        case .function: "pb_function_t"
        case .launch: "pb_launch_t"
        case .memory: "pb_memory_t"
        case .openURL: "pb_open_url_t"
        case .plugin: "pb_plugin_t"
        case .protectedData: "pb_protected_data_t"
        case .remoteNotifications: "pb_remote_notifications_t"
        case .savedState: "pb_saved_state_t"
        case .termination: "pb_termination_t"
        case .userActivity: "pb_user_activity_t"
        }
    }
}

/// The `struct_size` a library declared for each ABI struct it handed over (the largest, for a
/// struct handed over more than once): a value, one slot per struct, so that nothing is sorted,
/// merged or allocated for each plugin loaded.
struct DeclaredStructSizes: Sendable {
    /// By ``ABIStructName/rawValue``; -1 for a struct not handed over. `struct_size` is a `uint32_t`.
    private var sizes: [12 of Int] = .init(repeating: -1)

    /// No struct handed over yet.
    init() {}

    /// Only `name` handed over, with `size`.
    init(_ name: ABIStructName, size: Int) {
        declare(name, size: size)
    }

    /// Notes that `size` was declared for `name`.
    mutating func declare(_ name: ABIStructName, size: Int) {
        sizes[name.rawValue] = max(sizes[name.rawValue], size)
    }

    /// Notes what `other` declared.
    mutating func declare(_ other: DeclaredStructSizes) {
        for index in sizes.indices { sizes[index] = max(sizes[index], other.sizes[index]) }
    }

    /// The sizes declared, in byte order of the structs' names (``LibraryABI/sortedStructSizes``).
    /// Libraries built against one header declare the same sizes, so the last list made is kept and
    /// handed out again for the same sizes: a load of many libraries makes it about once.
    var sorted: [(name: String, size: Int)] {
        Self.lastSorted.withLock { last in
            if let last, last.sizes.indices.allSatisfy({ last.sizes[$0] == sizes[$0] }) { return last.list }
            let list = listed
            last = (sizes, list)
            return list
        }
    }

    /// The sizes last listed by ``sorted``, and their list.
    private static let lastSorted = Mutex<(sizes: [12 of Int], list: [(name: String, size: Int)])?>(nil)

    /// The sizes declared, listed now.
    private var listed: [(name: String, size: Int)] {
        var list: [(name: String, size: Int)] = []
        list.reserveCapacity(sizes.indices.reduce(0) { $0 + (sizes[$1] >= 0 ? 1 : 0) })
        for index in sizes.indices where sizes[index] >= 0 {
            if let name = ABIStructName(rawValue: index) { list.append((name.cName, sizes[index])) }
        }
        return list
    }
}
