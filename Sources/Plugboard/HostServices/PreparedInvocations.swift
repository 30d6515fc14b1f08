import Synchronization

/// The prepared invocations one library holds (`pb_host_t.prepare_invoke`), by the handle it
/// was given: a number, never an address, so a handle that is unknown, released or made up is
/// found to be so and refused, never read. Thread-safe; held in place by its owner (not an
/// object of its own: every library has one).
struct PreparedInvocations: ~Copyable, Sendable {
    /// The next handle's number, and the invocations by number. (A tuple: a nested type in a
    /// noncopyable struct crashes the Swift 6.3 compiler.)
    private let table = Mutex<(next: UInt, invocations: [UInt: PreparedInvocation])>((1, [:]))

    /// Keeps `invocation` until ``release(_:)``; its handle.
    func add(_ invocation: PreparedInvocation) -> OpaquePointer? {
        let number = table.withLock { table in
            let number = table.next
            table.next += 1
            table.invocations[number] = invocation
            return number
        }
        return OpaquePointer(bitPattern: number)
    }

    /// The invocation `handle` stands for, if it was given out and not released.
    func find(_ handle: OpaquePointer?) -> PreparedInvocation? {
        table.withLock { $0.invocations[Self.number(of: handle)] }
    }

    /// Lets go of the invocation `handle` stands for (a call of it that runs keeps it until it returns).
    func release(_ handle: OpaquePointer?) {
        _ = table.withLock { $0.invocations.removeValue(forKey: Self.number(of: handle)) }
    }

    /// The number `handle` carries (0, which no invocation has, for NULL).
    private static func number(of handle: OpaquePointer?) -> UInt {
        UInt(bitPattern: handle.map(Int.init(bitPattern:)) ?? 0)
    }

    /// Lets go of every invocation: the library has ended.
    func releaseAll() {
        // Taken out under the lock, freed after it.
        _ = table.withLock { table in
            let all = table.invocations
            table.invocations = [:]
            return all
        }
    }
}
