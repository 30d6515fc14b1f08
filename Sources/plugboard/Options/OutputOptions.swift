import ArgumentParser

/// `--json`, shared by every command that prints a report.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON instead of the human report.")
    var json = false
}
