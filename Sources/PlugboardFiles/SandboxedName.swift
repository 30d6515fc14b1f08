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
/// - no control character (U+0001–U+001F, U+007F), which would break a line
///   or drive a terminal wherever the name is shown;
/// - within `ContainerPathLimits`: component length, then depth, then the
///   length of the whole container path (the name after the directory of the
///   `ErrorContext`, or the name itself when it has none).
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

    static let slash = UInt8(ascii: "/")
    static let dot = UInt8(ascii: ".")

    /// Validates `name`, reporting a refusal against `context`, whose
    /// directory (if any) is the one `name` is relative to.
    ///
    /// Works on UTF-8 bytes, as the kernel does: Swift's `Character`
    /// comparison would treat "/" followed by a combining mark as one
    /// grapheme that is not "/", while the kernel still sees a separator.
    /// One pass finds the separators, NUL bytes and control characters (no
    /// byte of a multi-byte UTF-8 sequence is below 0x80, so each such byte
    /// is the character itself); of several problems, the most telling is
    /// reported.
    init(validating name: String, _ context: ErrorContext) throws(FileFacadeError) {
        let bytes = Array(name.utf8)
        var segments: [Range<Int>] = []
        var containsNUL = false
        var controlCharacter: Unicode.Scalar?
        var segmentStart = 0
        for index in 0...bytes.count {
            if index < bytes.count {
                let byte = bytes[index]
                if byte == 0 { containsNUL = true }
                if controlCharacter == nil && Self.isControlCharacter(byte) {
                    controlCharacter = Unicode.Scalar(byte)
                }
                if byte != Self.slash { continue }
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
        if let controlCharacter {
            throw context.error(.invalidName(.containsControlCharacter(controlCharacter)))
        }
        if let longest = segments.map(\.count).max(), longest > ContainerPathLimits.componentBytes {
            throw context.error(.invalidName(.componentTooLong(bytes: longest)))
        }
        // Counted on the container path: the directory and its '/' come first.
        let directoryFolders = context.directory?.components.count ?? 0
        let directoryBytes = context.directory.map { $0.relativePath.utf8.count + 1 } ?? 0
        let folders = directoryFolders + segments.count - 1
        if folders > ContainerPathLimits.folderDepth {
            throw context.error(.invalidName(.tooDeep(folders: folders)))
        }
        let pathBytes = directoryBytes + bytes.count
        if pathBytes > ContainerPathLimits.pathBytes {
            throw context.error(.invalidName(.tooLong(bytes: pathBytes)))
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

    /// This name with its final component replaced by `newLeaf` (the new name
    /// of a rename or an extension change): `newLeaf` is validated as a single
    /// component, and the resulting name against the limits, reported under
    /// that whole name so the numbers match what is shown.
    func replacingLeaf(with newLeaf: String, _ context: ErrorContext) throws(FileFacadeError) -> SandboxedName {
        _ = try SandboxedName(validatingComponent: newLeaf, context)
        let newName = (folders + [newLeaf]).joined(separator: "/")
        return try SandboxedName(
            validating: newName,
            ErrorContext(operation: context.operation, directory: context.directory, name: newName))
    }

    /// U+0001–U+001F and U+007F; NUL has its own reason.
    private static func isControlCharacter(_ byte: UInt8) -> Bool {
        (byte > 0 && byte < 0x20) || byte == 0x7F
    }
}
