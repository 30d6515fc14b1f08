import PlugboardWorkerProtocol

/// One plugin's saved state as it is stored: who saved it, with which version, when, the
/// bytes, and a checksum over all of it.
///
/// Layout, little-endian (the worker protocol's encoding): the 8-byte magic `PBSTATE\0`, a `u16`
/// format version (1), the plugin id and the plugin version (each a `u32` byte length and UTF-8),
/// a `u64` save time (nanoseconds since 1970, UTC), the state (a `u32` length and the bytes), and
/// a `u32` CRC-32 of every byte before it.
public struct SavedStateFile: Sendable, Equatable {
    /// The id of the plugin that saved it.
    public let pluginID: String
    /// That plugin's version when it saved.
    public let pluginVersion: String
    /// When it was saved: nanoseconds since 1970-01-01 UTC.
    public let savedAtNanoseconds: UInt64
    /// The plugin's bytes.
    public let state: [UInt8]

    /// The first bytes of every state file.
    static let magic: [UInt8] = Array("PBSTATE".utf8) + [0]
    /// The format this host writes and reads.
    static let formatVersion: UInt16 = 1
    /// The largest state kept: `PB_SAVED_STATE_MAX_SIZE`.
    public static let maximumStateSize = 16 * 1024 * 1024
    /// The largest file read: the largest state and 1 MiB of header (an id is at most 255 bytes;
    /// the rest is the plugin's version). A larger file is unusable without being read.
    public static let maximumFileSize: UInt64 = UInt64(maximumStateSize) + 1024 * 1024

    /// A state to store.
    public init(pluginID: String, pluginVersion: String, savedAtNanoseconds: UInt64, state: [UInt8]) {
        self.pluginID = pluginID
        self.pluginVersion = pluginVersion
        self.savedAtNanoseconds = savedAtNanoseconds
        self.state = state
    }

    /// The file's bytes.
    public func encoded() -> [UInt8] {
        var encoder = WireEncoder(capacity: state.count + 64)
        for byte in Self.magic { encoder.append(byte) }
        encoder.append(Self.formatVersion)
        encoder.append(string: pluginID)
        encoder.append(string: pluginVersion)
        encoder.append(savedAtNanoseconds)
        encoder.append(bytes: state)
        encoder.append(CRC32.checksum(encoder.bytes))
        return encoder.bytes
    }

    /// Reads a file's bytes; whatever they are, the answer is a state or an error that says why not.
    public static func decode(_ bytes: [UInt8]) throws(SavedStateFileError) -> SavedStateFile {
        guard bytes.starts(with: magic) else { throw .notAStateFile }
        var decoder = WireDecoder(bytes, range: magic.count..<bytes.count)
        let format = try field { () throws(WorkerProtocolError) in try decoder.readUInt16("format version") }
        guard format == formatVersion else { throw .unknownFormat(format) }
        let pluginID = try field { () throws(WorkerProtocolError) in try decoder.readString("plugin id") }
        let pluginVersion = try field { () throws(WorkerProtocolError) in try decoder.readString("plugin version") }
        let savedAt = try field { () throws(WorkerProtocolError) in try decoder.readUInt64("save time") }
        guard pluginVersion.utf8.count <= PluginDescriptor.maximumTextLength else {
            throw .overLimit(field: "plugin version", bytes: pluginVersion.utf8.count, limit: PluginDescriptor.maximumTextLength)
        }
        let state = try field { () throws(WorkerProtocolError) in try decoder.readBytes("state") }
        // A plugin may count on the limit of the ABI (`PB_SAVED_STATE_MAX_SIZE`): no larger state reaches it.
        guard state.count <= maximumStateSize else { throw .overLimit(field: "state", bytes: state.count, limit: maximumStateSize) }
        let checked = bytes.count - decoder.remaining
        let stored = try field { () throws(WorkerProtocolError) in try decoder.readUInt32("checksum") }
        guard decoder.remaining == 0 else { throw .trailingBytes(decoder.remaining) }
        let computed = CRC32.checksum(bytes[..<checked])
        guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
        return SavedStateFile(pluginID: pluginID, pluginVersion: pluginVersion, savedAtNanoseconds: savedAt, state: state)
    }

    /// One field read by `read`, a decoding error turned into the file's.
    private static func field<Value>(_ read: () throws(WorkerProtocolError) -> Value) throws(SavedStateFileError) -> Value {
        do {
            return try read()
        } catch .malformed(let field, let cause) {
            throw .truncated(field: field, cause: cause.description)
        } catch {
            throw .truncated(field: "state file", cause: error.description)
        }
    }
}

/// Why the bytes of a state file are not a state.
public enum SavedStateFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes do not start with the magic: another kind of file.
    case notAStateFile
    /// A format version this host does not read (a newer host wrote it).
    case unknownFormat(UInt16)
    /// A field runs past the end of the file, or is not UTF-8 where it must be.
    case truncated(field: String, cause: String)
    /// Bytes after the checksum.
    case trailingBytes(Int)
    /// The checksum does not match the contents: the file was damaged.
    case checksumMismatch(stored: UInt32, computed: UInt32)
    /// A valid file saved for another plugin id.
    case foreign(savedFor: String)
    /// A field longer than any state file holds: `bytes`, where `limit` is the most.
    case overLimit(field: String, bytes: Int, limit: Int)

    /// The cause, in a few words.
    public var description: String {
        switch self {
        case .notAStateFile: "not a Plugboard state file (no PBSTATE magic)"
        case .unknownFormat(let format): "state file format \(format), this host reads format \(SavedStateFile.formatVersion)"
        case .truncated(let field, let cause): "truncated or malformed: \(field): \(cause)"
        case .trailingBytes(let count): "\(count) unexpected bytes after the checksum"
        case .checksumMismatch(let stored, let computed):
            "checksum mismatch (stored \(hex(stored)), contents give \(hex(computed))): the file is damaged"
        case .foreign(let id): "saved for another plugin, '\(id)'"
        case .overLimit(let field, let bytes, let limit): "its \(field) is \(bytes) bytes, more than the \(limit) bytes it may have"
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
