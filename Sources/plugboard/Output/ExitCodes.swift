import ArgumentParser

/// The documented exit codes of `plugboard`; README and `--help` list the same.
enum ExitCodes {
    /// Everything asked for was done.
    static let success = ExitCode(0)
    /// A runtime failure: `list`/`inspect` found a library that failed, an input could not be read
    /// (or `run --reset-state` could not remove a state),
    /// `new` could not write the project, `call` could not call the function or take its result,
    /// or a `validate` check failed or crashed.
    static let failure = ExitCode(1)
    /// `run`: a plugin vetoed the launch.
    static let launchVetoed = ExitCode(2)
    /// `run`: plugins were asked for (flag or environment), and none could be loaded.
    static let noPluginLoaded = ExitCode(3)
    /// `run`: plugins were asked for (flag or environment), and a library or
    /// directory among them failed to load, at the start or when it joined or changed during
    /// the run; the others ran to the end.
    static let libraryFailed = ExitCode(4)
    /// `run --isolation process`: a plugin's worker crashed, exited, broke its channel or
    /// did not return within the call timeout during the run, or at shutdown in its library's `deinit`;
    /// the others ran to the end.
    /// `call`: the function's worker did.
    static let pluginFailed = ExitCode(5)
    /// `run`: an events line was malformed, not UTF-8 or longer than 64 MiB, and skipped; the
    /// other lines ran (sysexits' EX_DATAERR).
    static let eventsLineSkipped = ExitCode(65)
    /// A wrong argument or option (swift-argument-parser's validation exit code).
    static let usage = ExitCode.validationFailure
    /// Every command that prints: its output could not be written (standard output closed or full, or
    /// its reader gone), or `run`'s `--trace-file` or `--svg` file could not be; sysexits' EX_IOERR.
    static let reportLost = ExitCode(74)

    /// The text appended to each command's help.
    static let helpText = """
        Exit codes: 0 success; 1 a library failed to load (list, inspect), an input \
        could not be read, a state could not be removed (run --reset-state), the project could not be written (new), the function could not be \
        called or its result taken (call), or a check failed or crashed (validate); 2 launch vetoed (run); 3 plugins were asked for but none \
        loaded (run); 4 plugins were asked for and a library or directory among them \
        failed to load, at the start or when it joined or changed during the run, the others ran to the end (run); 5 a plugin's worker crashed, \
        exited or timed out during the run or in deinit at shutdown, the others ran to the end \
        (run --isolation process; before 4 and 65), or during the call (call); 64 usage error; 65 an events line was malformed, \
        not UTF-8 or too long, and skipped, the other lines ran (run; 4 before it); 74 the report \
        could not be written to standard output (every command that prints, the help too: closed, full or broken; one \
        line on standard error says so), or run's --trace-file or --svg file could not be written; 128+N interrupted by signal N (run, after \
        will-terminate reached every plugin; a second signal ends it at once, with the same code).
        """
}
