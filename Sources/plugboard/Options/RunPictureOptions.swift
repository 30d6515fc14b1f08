import ArgumentParser

/// `run --trace-file` and `run --svg`: pictures of the run, written when it ends.
struct RunPictureOptions: ParsableArguments {
    @Option(name: .customLong("trace-file"),
            help: ArgumentHelp("Write the run as Chrome trace-event JSON (Perfetto, chrome://tracing) to this file.",
                               valueName: "file"),
            transform: WorkingDirectory.absolute)
    var traceFile: String?

    @Option(name: .customLong("svg"),
            help: ArgumentHelp("Draw the launch (loads and launch calls per plugin) as an SVG timeline in this file.",
                               valueName: "file"),
            transform: WorkingDirectory.absolute)
    var svgFile: String?

    /// A recording when a picture is asked for.
    func recording() -> RunRecording? {
        traceFile == nil && svgFile == nil ? nil : RunRecording()
    }

    func validate() throws {
        for path in [traceFile, svgFile].compactMap({ $0 }) where path.isEmpty || path.hasSuffix("/") {
            throw ValidationError("--trace-file and --svg take a file's path, got \(quoted: path)")
        }
    }

    /// Writes the pictures of `recording`, a picture asked for on standard output to `standardOutput`
    /// (the report's descriptor); returns the sentence of each file that could not be written.
    func write(_ recording: RunRecording, standardOutput: Int32) -> [String] {
        let trace = recording.trace
        let pictures: [(path: String?, what: String, render: () -> String)] = [
            (traceFile, "trace file", { JSONOutput.encode(trace, pretty: false) + "\n" }),
            (svgFile, "SVG file", { LaunchTimelineSVG.render(PluginTimeline.all(in: trace)) }),
        ]
        var failures: [String] = []
        for picture in pictures {
            guard let path = picture.path else { continue }
            do throws(OutputFileError) {
                try OutputFile.write(picture.render(), to: path, what: picture.what, standardOutput: standardOutput)
            } catch {
                failures.append(error.message)
            }
        }
        return failures
    }
}
