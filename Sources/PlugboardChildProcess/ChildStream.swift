/// Where one of a child's standard streams comes from or goes to.
public enum ChildStream: Sendable {
    /// The parent's own stream.
    case inherit
    /// `/dev/null`.
    case discard
    /// A file: read for standard input; created or truncated (mode 0644) for an output.
    case file(String)
    /// A close-on-exec pipe whose other end the `ChildProcess` holds.
    case pipe
    /// For standard error only: wherever standard output goes (`2>&1`); for
    /// standard input or output the start fails with EINVAL.
    case sameAsOutput
}
