import ArgumentParser
import Glibc

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

    /// A file's path whose folder exists, checked before anything runs: the file is written when
    /// the run ends, and a run should not end in an error it could have said at once.
    func validate() throws {
        for (option, path) in [("--trace-file", traceFile), ("--svg", svgFile)] {
            guard let path else { continue }
            if path.isEmpty || path.hasSuffix("/") {
                throw ValidationError("--trace-file and --svg take a file's path, got \(quoted: path)")
            }
            let folder = WorkingDirectory.folder(holding: path)
            var status = stat()
            guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw ValidationError("\(option) \(quoted: path): the folder \(quoted: folder) does not exist or is not a folder")
            }
            if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                throw ValidationError("\(option) \(quoted: path) is a folder; it takes a file's path")
            }
        }
        if let traceFile, let svgFile, Self.replaceable(traceFile),
           Self.place(of: traceFile) == Self.place(of: svgFile) || Self.identity(traceFile).map({ $0 == Self.identity(svgFile) }) == true {
            throw ValidationError("--trace-file and --svg name the same file, \(quoted: svgFile): one would replace the other")
        }
    }

    /// Refuses a picture file that is one of the run's `inputs` (what each is, and its path) or lies
    /// in one of the `pluginFolders`: written when the run ends, it would replace a file the run read,
    /// or put a file among the plugins. Compared by device and inode, however the paths are written.
    func refuseOverwriting(inputs: [(what: String, path: String)], pluginFolders: [String]) throws {
        for (option, path) in [("--trace-file", traceFile), ("--svg", svgFile)] {
            guard let path, Self.replaceable(path) else { continue }
            if let output = Self.identity(path), let input = inputs.first(where: { Self.identity($0.path) == output }) {
                throw ValidationError("\(option) \(quoted: path) is \(input.what); the picture would replace it")
            }
            let folder = Self.identity(WorkingDirectory.folder(holding: path))
            if let plugins = pluginFolders.first(where: { Self.identity($0) == folder }) {
                throw ValidationError("\(option) \(quoted: path) is in the plugin folder \(quoted: plugins); write it elsewhere")
            }
        }
    }

    /// Whether a picture written to `path` replaces what is there: a regular file, or nothing yet.
    /// A FIFO, a device or a terminal (`/dev/stdout`) is written through, in place (`OutputFile`).
    private static func replaceable(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) != 0 || status.st_mode & S_IFMT == S_IFREG
    }

    /// Where `path` names a file: its folder's device and inode and its last component, so two
    /// spellings of one folder name one place whether the file exists yet or not.
    private static func place(of path: String) -> String {
        let folder = WorkingDirectory.folder(holding: path)
        let leaf = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        return (identity(folder).map { "\($0)" } ?? folder) + "/" + leaf
    }

    /// The device and inode of the file at `path`, links followed; nil when there is none.
    private static func identity(_ path: String) -> [UInt64]? {
        var status = stat()
        return stat(path, &status) == 0 ? [UInt64(status.st_dev), UInt64(status.st_ino)] : nil
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
