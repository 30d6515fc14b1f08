import ArgumentParser
import Foundation
import Glibc
import Plugboard
import PlugboardFiles

/// `plugboard run`: load, launch, deliver events in order, terminate, and
/// report every event as it happens.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Load the plugins, launch, deliver events, terminate; report who did what.",
        discussion: """
            The built-in files plugin (org.plugboard.files) creates the container's \
            Documents, Documents/Inbox, Library and tmp at launch and empties tmp at \
            terminate; C plugins reach the container through the files host service.

            Order: will-finish-launching and did-finish-launching (a veto stops the run \
            after will-terminate), each --open-url, each line of --events, then will-terminate. \
            SIGINT or SIGTERM while events are read sends will-terminate to every plugin, then exits.

            Events are JSON objects, one per line, for example:
              {"event":"open-url","url":"myapp://item/42","options":{}}
              {"event":"continue-user-activity","type":"com.example.view","userInfo":{}}
              {"event":"remote-notification","userInfo":{"aps":{}},"deadlineMs":5000}
              {"event":"register-token","token":"a1b2c3"}    (hex bytes)
              {"event":"register-failed","error":"no network"}
              {"event":"memory-warning"}   and likewise: protected-data-will-become-unavailable,
              protected-data-did-become-available, did-become-active, will-resign-active,
              did-enter-background, will-enter-foreground, will-terminate (ends the script).
            A malformed line is reported with its line number and skipped.

            With --json, every load report, log message, event report and input error is \
            one JSON object per line, with a "type" of load, log, event, note, input-error or exit.

            \(ExitCodes.helpText)
            """)

    @OptionGroup var search: PluginSearchOptions
    @OptionGroup var trust: TrustOptions
    @OptionGroup var container: ContainerOptions

    @Option(name: .customLong("events"),
            help: ArgumentHelp("Read events as JSON lines from this file, or - for standard input.", valueName: "file"))
    var eventsPath: String?

    @Option(name: .customLong("open-url"),
            help: ArgumentHelp("Open this URL after launch; repeatable, delivered before --events.", valueName: "url"))
    var urls: [String] = []

    @Option(name: .customLong("launch-options"),
            help: ArgumentHelp("A JSON object handed to the launch events.", valueName: "json"))
    var launchOptions = "{}"

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let eventsPath, eventsPath != "-", access(eventsPath, R_OK) != 0 {
            throw ValidationError("cannot read the events file '\(eventsPath)': \(String(cString: strerror(errno)))")
        }
        let parsed = try? JSONSerialization.jsonObject(with: Data(launchOptions.utf8))
        if !(parsed is [String: Any]) {
            throw ValidationError("--launch-options must be a JSON object, got '\(launchOptions)'")
        }
    }

    func run() throws {
        let console = Console()
        let json = output.json
        let signals = SignalWatcher.install()
        let log: PluginHost.LogHandler = { record in
            json ? console.jsonLine(Tagged(type: "log", record)) : console.line(HumanFormat.log(record))
        }
        let host = PluginHost(logHandler: log)
        let facade = FileFacade(container: try container.container())
        host.fileFacade = facade
        try host.register(FilesPlugin(facade: facade, log: log))
        let session = RunSession(host: host, console: console, json: json)
        let code = session.perform(self, signals: signals)
        host.shutdown()
        session.finish(code)
        if code != ExitCodes.success { throw code }
    }
}

/// One JSON line of `run --json`: a type tag and its payload's fields.
struct Tagged<Payload: Encodable>: Encodable {
    let type: String
    let payload: Payload

    init(type: String, _ payload: Payload) {
        self.type = type
        self.payload = payload
    }

    func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type, forKey: .type)
    }

    private enum TypeKey: String, CodingKey { case type }
}
