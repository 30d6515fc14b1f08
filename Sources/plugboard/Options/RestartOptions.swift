import ArgumentParser

/// `--restart`: how often `run` starts a library's failed worker again. Only `run` offers it:
/// `call` makes one call, after which a restarted worker would never be used.
struct RestartOptions: ParsableArguments {
    @Option(name: .customLong("restart"), parsing: .unconditional,  // "-1" is a value to refuse, not an option
            help: ArgumentHelp("With --isolation process: how often (0 to 1000, default 0) a library's worker that crashed, exited or timed out is started again, until will-terminate (the file must be the one that served, unchanged, and it and its folder must pass the trust rule again; then init and register_plugins run again, and an id another library's plugin took meanwhile stays that plugin's; its plugins take part from the next event on; a worker that died between calls gets the call that found it so).",
                               valueName: "n"))
    var restarts = 0

    func validate() throws {
        guard (0...1_000).contains(restarts) else {
            throw ValidationError("--restart must be a count from 0 to 1000, got \(restarts)")
        }
    }
}
