import Glibc
import SystemPackage

/// Questions about a name that do not change anything.
///
/// They answer `false` only for the plain "no" (absent, or access denied);
/// an invalid name, a symbolic link on the way, or an unexpected system
/// failure is thrown, so a `false` never hides another reason.
extension FileFacade {
    /// Whether an entry exists at `name`; `false` when it or one of its
    /// folders is absent. A final symbolic link counts as an entry.
    public func exists(_ name: String, in directory: AppDirectory) throws(FileFacadeError) -> Bool {
        let context = ErrorContext(operation: .checkExistence, directory: directory, name: name)
        let validName = try SandboxedName(validating: name, context)
        do {
            let parent = try openParent(of: validName, in: directory, context)
            _ = try context.attempt { () throws(Errno) in try parent.status(of: validName.leaf) }
            return true
        } catch where error.reason == .notFound {
            return false
        }
    }

    /// Whether the existing entry `name` may be read (for a directory: listed)
    /// by this process's effective user; throws `.notFound` when absent and
    /// `.symbolicLink` for a link, which the facade would not read through.
    public func isReadable(_ name: String, in directory: AppDirectory) throws(FileFacadeError) -> Bool {
        try checkAccess(name, in: directory, mode: R_OK, operation: .checkReadability)
    }

    /// Whether the existing entry `name` may be written by this process's
    /// effective user; throws like `isReadable`.
    public func isWritable(_ name: String, in directory: AppDirectory) throws(FileFacadeError) -> Bool {
        try checkAccess(name, in: directory, mode: W_OK, operation: .checkWritability)
    }

    private func checkAccess(
        _ name: String, in directory: AppDirectory, mode: CInt, operation: FileFacadeError.Operation
    ) throws(FileFacadeError) -> Bool {
        let context = ErrorContext(operation: operation, directory: directory, name: name)
        let validName = try SandboxedName(validating: name, context)
        let parent = try openParent(of: validName, in: directory, context)
        let kind = try context.attempt { () throws(Errno) in try parent.kind(of: validName.leaf) }
        if kind == .symbolicLink { throw context.error(.symbolicLink) }
        // AT_SYMLINK_NOFOLLOW: a link swapped in since the check is judged
        // itself, never its target.
        return try context.attempt { () throws(Errno) in
            try parent.isAccessible(validName.leaf, mode: mode)
        }
    }
}
