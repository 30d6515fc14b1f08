import CPlugboard

/// Calling a C plugin's saved-state slots, the one way the host (in process) and a worker do it:
/// the bytes copied and released as `events/saved-state.h` says, every breach a sentence.
enum SavedStateCall {
    /// What one call came to.
    enum Answer: Equatable {
        /// `save_state` gave these bytes (copied).
        case state([UInt8])
        /// `restore_state` took the state.
        case restored
        /// The call failed or its result breaks the rules; the sentence says how.
        case refused(String)
    }

    /// Calls `save_state` (nil when the slot is NULL) and copies its bytes before `release_state`.
    static func save(_ table: pb_saved_state_t, ctx: UnsafeMutableRawPointer?) -> Answer? {
        guard let save = table.save_state else { return nil }
        var out = pb_bytes_t(data: nil, size: 0)
        let status = save(ctx, &out)
        defer { if let data = out.data { table.release_state?(ctx, data, out.size) } }
        guard status == PB_OK else { return .refused("save_state returned status \(status)") }
        guard let size = ByteCount.checked(out.size, limit: SavedStateFile.maximumStateSize) else {
            return .refused("save_state returned " + ByteCount.overLimit(out.size, limit: SavedStateFile.maximumStateSize)
                            + " (PB_SAVED_STATE_MAX_SIZE)")
        }
        guard size == 0 || out.data != nil else {
            return .refused("save_state returned NULL data with a size of \(size)")
        }
        return .state(out.data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    }

    /// Calls `restore_state` with `state` saved by `savedVersion` (nil when the slot is NULL).
    static func restore(_ table: pb_saved_state_t, ctx: UnsafeMutableRawPointer?, savedVersion: [UInt8],
                        state: [UInt8]) -> Answer? {
        guard let restore = table.restore_state else { return nil }
        let version = savedVersion.map { CChar(bitPattern: $0) } + [0]
        // A zero-length state still gets a valid pointer (the header promises data is never NULL).
        let status = (state.isEmpty ? [0] : state).withUnsafeBufferPointer { bytes in
            version.withUnsafeBufferPointer { restore(ctx, $0.baseAddress, bytes.baseAddress, state.count) }
        }
        return status == PB_OK ? .restored : .refused("restore_state refused the state with status \(status)")
    }
}
