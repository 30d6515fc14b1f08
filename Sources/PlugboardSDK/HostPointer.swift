import CPlugboard

/// The host's services table. The host keeps it valid for the life of the process and its
/// functions are thread-safe, so the pointer may be shared between threads.
struct HostPointer: @unchecked Sendable {
    let table: UnsafePointer<pb_host_t>
}
