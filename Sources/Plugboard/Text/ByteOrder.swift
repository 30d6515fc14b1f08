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

extension String {
    /// Whether this string's UTF-8 comes before `other`'s in byte order (see
    /// ``Swift/UnsafeBufferPointer/precedesInByteOrder(_:)``).
    func precedesInByteOrder(_ other: String) -> Bool {
        var (left, right) = (self, other)
        return left.withUTF8 { left in right.withUTF8 { right in left.precedesInByteOrder(right) } }
    }
}
