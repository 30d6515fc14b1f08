import Glibc

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes come before `other` in byte order: `memcmp` of their common length, then
    /// the shorter first. The order of file names in a folder's listing and of struct names in a
    /// library's ABI, which `String`'s `<` (Unicode order) is not.
    func precedesInByteOrder(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let left = baseAddress, let right = other.baseAddress else { return count < other.count }
        let order = memcmp(left, right, Swift.min(count, other.count))
        return order != 0 ? order < 0 : count < other.count
    }
}
