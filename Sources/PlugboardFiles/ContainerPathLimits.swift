/// The limits every name obeys, checked with the other name rules before any
/// system call (see `SandboxedName`).
///
/// They are counted on the container path, the name together with its
/// standard directory ("Documents/Inbox/notes/a.txt"), so a name is accepted
/// or refused alike whether it comes as a container path (C plugins,
/// `plugboard files`) or as a directory and a name (Swift callers).
public enum ContainerPathLimits {
    /// The longest component, in UTF-8 bytes: Linux's NAME_MAX.
    public static let componentBytes = 255

    /// The longest container path, in UTF-8 bytes: PATH_MAX less its NUL, so
    /// every container path fits a C caller's `char path[PATH_MAX]`.
    public static let pathBytes = 4095

    /// The most folders a container path passes through, its standard
    /// directory included ("tmp/a/b.txt" is 2 deep).
    ///
    /// 128 is far deeper than any real layout, and keeps every tree in the
    /// container one that other programs (backup tools, `find`, a recursive
    /// copy) walk without trouble; each call opens one descriptor per
    /// folder, so it also bounds the work of a single call.
    public static let folderDepth = 128
}
