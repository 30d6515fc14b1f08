import Testing
@testable import plugboard

/// Relative paths from the command line are joined to the working directory as the folder they
/// name: leading `.` and `..` resolved against it, nothing past them changed.
@Suite struct WorkingDirectoryTests {
    @Test(arguments: [
        ("/home/ann/app", "plugins", "/home/ann/app/plugins"),
        ("/home/ann/app", "plugins/", "/home/ann/app/plugins/"),
        ("/home/ann/app", "./plugins", "/home/ann/app/plugins"),
        ("/home/ann/app", ".//./plugins", "/home/ann/app/plugins"),
        ("/home/ann/app", "../app/plugins", "/home/ann/app/plugins"),
        ("/home/ann/app", "../../x", "/home/x"),
        ("/home/ann/app", "../../../../x", "/x"),
        ("/home/ann/app", ".", "/home/ann/app"),
        ("/home/ann/app", "..", "/home/ann"),
        ("/home/ann/app", "../..", "/home"),
        ("/home", "..", "/"),
        ("/", "plugins", "/plugins"),
        ("/", "../plugins", "/plugins"),
        // Past a name, `..` may follow a symbolic link: the file system resolves it.
        ("/home/ann/app", "link/../plugins", "/home/ann/app/link/../plugins"),
        ("/home/ann/app", "..plugins", "/home/ann/app/..plugins"),
    ])
    func leadingDotsAreResolvedAgainstTheDirectory(directory: String, relative: String, joined: String) {
        #expect(WorkingDirectory.joined(directory, relative) == joined)
    }
}
