import Glibc
import SystemPackage

/// One small, safe interface over the file system of a sandboxed container.
///
/// Every operation takes a standard directory and a name relative to it
/// ("notes/2026/today.txt"). Names are validated (see the rules on
/// `FileFacadeError.InvalidNameReason`: no "..", no absolute paths, no NUL
/// or other control character, no empty or "." segments, within
/// `ContainerPathLimits`), and then resolved one component at a time
/// from a directory descriptor with `O_NOFOLLOW`: the facade never follows a
/// symbolic link, inside the container or out, so no name and no link
/// swapped in between two calls can reach outside the container. A final
/// component that is a symbolic link is acted on as an entry (deleted,
/// renamed, described) and never opened.
///
/// Writes and copies are atomic and flushed to storage (see `AtomicWrite`).
/// Renames and moves are one atomic `renameat2`, not flushed: after a power
/// loss the entry may still carry its old name, but it is never lost or
/// partial. Overwriting is always an explicit choice, and every failure is
/// a `FileFacadeError`.
///
/// The facade is a plain value: it keeps no descriptors open between calls,
/// so it can be shared freely across threads.
public struct FileFacade: Sendable {
    /// The container every name is resolved in.
    public let container: Container

    /// A facade over `container`; call `container.createDirectories()` first.
    public init(container: Container) {
        self.container = container
    }

    /// Opens the folder holding the last component of `name`, without
    /// following symbolic links, creating missing folders when asked.
    func openParent(
        of name: SandboxedName, in directory: AppDirectory, creatingFolders: Bool = false,
        _ context: ErrorContext
    ) throws(FileFacadeError) -> DirectoryDescriptor {
        let start = try container.openDirectory(directory, context)
        return try context.attempt { () throws(Errno) in
            var current = start
            for folder in name.folders {
                current = creatingFolders
                    ? try current.makeAndOpenSubdirectory(folder, mode: 0o777)
                    : try current.openSubdirectory(folder)
            }
            return current
        }
    }
}
