/// The frame layout shared by both directions: a little-endian `u32` payload
/// length, then the payload, which starts with the `u8` message kind and the
/// `u64` request id.
public enum WireFormat {
    /// Bytes of the length prefix before each payload.
    public static let lengthPrefixSize = 4

    /// Bytes of kind and request id at the start of every payload.
    public static let payloadHeaderSize = 9

    /// The longest payload either side sends or accepts: 64 MiB.
    ///
    /// Large enough for what crosses the channel whole — a file the files
    /// service reads or writes in one call, a load report of many plugins —
    /// and small enough that a hostile length prefix cannot make the host
    /// reserve more than that per worker.
    public static let maximumPayloadLength = 64 << 20
}

extension WireFormat {
    /// Reads the length prefix at `offset` of `bytes`, of which `available` are
    /// valid from `offset` on, and refuses a length over the maximum.
    static func payloadLength(prefix bytes: [UInt8], at offset: Int, available: Int) throws(WorkerProtocolError) -> Int {
        guard available >= lengthPrefixSize else {
            throw .truncatedFrame(received: available, expected: lengthPrefixSize)
        }
        var decoder = WireDecoder(bytes, range: offset..<(offset + lengthPrefixSize))
        let length = Int(try decoder.readUInt32("length"))
        guard length <= maximumPayloadLength else {
            throw .frameTooLarge(length: length, maximum: maximumPayloadLength)
        }
        return length
    }
}
