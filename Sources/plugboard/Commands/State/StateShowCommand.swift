import ArgumentParser
import Plugboard

/// `plugboard state show ID`: one plugin's saved state, header and bytes.
struct StateShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one plugin's saved state: its header, then the state as text or a hex dump.",
        discussion: """
            The state is shown as text when it is UTF-8 (control characters escaped), else as a \
            hex dump (offset, 16 bytes in hex, the printable ASCII). --json prints one object: \
            {"plugin", "file", "version", "savedAt", "stateBytes", "encoding": "utf-8" or "hex", \
            "state"} (the text, or the bytes as hex digits). No file, or an unusable one, is an \
            error naming the file and the cause.

            \(StateSession.exitCodes)
            """)

    @Argument(help: ArgumentHelp("The plugin whose state to show, e.g. com.example.history.", valueName: "plugin-id"))
    var plugin: String

    @OptionGroup var container: ContainerOptions
    @OptionGroup var output: OutputOptions

    /// The `--json` document.
    struct Description: Encodable {
        let plugin: String
        let file: String
        let version: String
        let savedAt: String
        let stateBytes: Int
        let encoding: String
        let state: String
    }

    func validate() throws {
        _ = try StateSession.pluginID(plugin)
    }

    func run() throws {
        let id = try StateSession.pluginID(plugin)
        let store = try StateSession.store(container)
        let file: SavedStateFile
        switch store.load(id) {
        case .none: try StateSession.fail("no saved state for \(id): \(quoted: store.path(of: id)) does not exist")
        case .unusable(let problem): try StateSession.fail(problem.description)
        case .found(let found): file = found
        }
        let text = String(validating: file.state, as: UTF8.self)
        let description = Description(
            plugin: id.rawValue, file: store.path(of: id), version: file.pluginVersion, savedAt: StateSession.savedAt(file),
            stateBytes: file.state.count, encoding: text == nil ? "hex" : "utf-8",
            state: text ?? Hexadecimal.lowercase(file.state))
        if output.json {
            try StateSession.output([JSONOutput.encode(description, pretty: true)])
            return
        }
        func row(_ key: String, _ value: String) -> String { FilesFormat.padded(key, 9) + ControlCharacters.escaped(value) }
        let header = [row("Plugin", description.plugin), row("Version", description.version), row("Saved", description.savedAt),
                      row("Size", "\(description.stateBytes) bytes"), row("File", description.file), ""]
        let body = text.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map { ControlCharacters.escaped(String($0)) } }
            ?? Self.hexDump(file.state)
        try StateSession.output(header + body)
    }

    /// `hexdump -C` lines: offset, 16 bytes in hex, the printable ASCII between bars.
    static func hexDump(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: bytes.count, by: 16).map { offset in
            let row = bytes[offset..<min(offset + 16, bytes.count)]
            let hex = row.map { Hexadecimal.lowercase(CollectionOfOne($0)) }.joined(separator: " ")
            let ascii = String(decoding: row.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
            let address = String(offset, radix: 16)
            return String(repeating: "0", count: max(0, 8 - address.count)) + address + "  "
                + FilesFormat.padded(hex, 47) + "  |" + ascii + "|"
        }
    }
}
