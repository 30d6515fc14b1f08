/// The extension rules of `changeExtension`, kept apart so they can be
/// stated and tested without a file system.
///
/// Only the last dot of the final component counts ("archive.tar.gz" has
/// extension "gz"), and a leading dot starts a hidden name rather than an
/// extension (".profile" has none, ".profile.bak" has "bak").
enum FileNameExtension {
    /// `leaf` with its extension replaced by `newExtension`, or removed when
    /// `newExtension` is empty. The result is not yet validated as a name.
    ///
    /// `newExtension` is one extension without its dot: no '.', '/' or NUL.
    static func replacing(in leaf: String, with newExtension: String, _ context: ErrorContext)
        throws(FileFacadeError) -> String
    {
        let bytes = newExtension.utf8
        if bytes.contains(0) { throw context.error(.invalidName(.containsNUL)) }
        if bytes.contains(UInt8(ascii: "/")) { throw context.error(.invalidName(.containsSlash)) }
        if bytes.contains(UInt8(ascii: ".")) { throw context.error(.invalidName(.containsDot)) }
        let base = baseName(of: leaf)
        return newExtension.isEmpty ? base : base + "." + newExtension
    }

    /// `leaf` without its extension and the dot before it.
    static func baseName(of leaf: String) -> String {
        // Dots are ASCII, so cutting the UTF-8 bytes there keeps valid UTF-8.
        let bytes = leaf.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex else {
            return leaf
        }
        return String(decoding: bytes[..<dot], as: UTF8.self)
    }
}
