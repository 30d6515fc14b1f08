/// A relative name that has been checked to stay inside its directory.
///
/// Validation is purely lexical and happens before any system call, so a
/// malformed name never reaches the file system. What it cannot see (a
/// component that is a symbolic link) is refused later, while walking.
///
/// Rules, each with its own reason:
/// - not empty, no NUL byte;
/// - not absolute, no ".." segment (`escapesContainer`);
/// - no empty segment ("a//b", trailing "/") and no "." segment, so each file
///   has exactly one spelling and names round-trip through `PathAdapter`;
/// - no segment longer than 255 UTF-8 bytes.
///
/// Everything else is an ordinary file name byte: backslashes, "%2e%2e",
/// spaces, unicode.
struct SandboxedName: Sendable, Equatable {
    /// Folder components, in order, then the final component; never empty.
    let components: [String]

    /// The folders that lead to the final component.
    var folders: ArraySlice<String> { components.dropLast() }

    /// The final component, which the operation acts on.
    var leaf: String { components[components.count - 1] }

    /// Linux's NAME_MAX.
    static let maximumComponentBytes = 255
    static let slash = UInt8(ascii: "/")
    static let dot = UInt8(ascii: ".")

    /// Validates `name`, reporting a refusal against `context`.
    ///
    /// Works on UTF-8 bytes, as the kernel does: Swift's `Character`
    /// comparison would treat "/" followed by a combining mark as one
    /// grapheme that is not "/", while the kernel still sees a separator.
    /// One pass finds the separators and NUL bytes; of several problems,
    /// the most telling is reported.
    init(validating name: String, _ context: ErrorContext) throws(FileFacadeError) {
        let bytes = Array(name.utf8)
        var segments: [Range<Int>] = []
        var containsNUL = false
        var segmentStart = 0
        for index in 0...bytes.count {
            if index < bytes.count {
                if bytes[index] == 0 { containsNUL = true }
                if bytes[index] != Self.slash { continue }
            }
            segments.append(segmentStart..<index)
            segmentStart = index + 1
        }
        func isDots(_ segment: Range<Int>, _ count: Int) -> Bool {
            segment.count == count && bytes[segment].allSatisfy { $0 == Self.dot }
        }
        if bytes.isEmpty { throw context.error(.invalidName(.empty)) }
        if containsNUL { throw context.error(.invalidName(.containsNUL)) }
        if bytes[0] == Self.slash { throw context.error(.escapesContainer) }
        if segments.contains(where: { isDots($0, 2) }) { throw context.error(.escapesContainer) }
        if segments.contains(where: \.isEmpty) { throw context.error(.invalidName(.emptySegment)) }
        if segments.contains(where: { isDots($0, 1) }) {
            throw context.error(.invalidName(.currentDirectorySegment))
        }
        if segments.contains(where: { $0.count > Self.maximumComponentBytes }) {
            throw context.error(.invalidName(.componentTooLong))
        }
        // Each segment ends at an ASCII '/', so it is valid UTF-8 on its own.
        self.components = segments.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    /// Validates a name that must be a single component (the new name of a
    /// rename, an app name): the same rules, and no '/'.
    init(validatingComponent name: String, _ context: ErrorContext) throws(FileFacadeError) {
        try self.init(validating: name, context)
        if components.count > 1 { throw context.error(.invalidName(.containsSlash)) }
    }
}
