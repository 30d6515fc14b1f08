import ArgumentParser
import Plugboard

/// `plugboard state rm ID…|--all`: forget saved states.
struct StateRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove the saved state of each plugin named, or of every plugin with --all.",
        discussion: """
            Prints one line per file removed ("removed '<file>'"); --json prints the array of \
            removed files. A plugin without a state file is an error naming the file; the others \
            named are still removed. `plugboard run --reset-state` does what --all does, before loading.

            \(StateSession.exitCodes)
            """)

    @Argument(help: ArgumentHelp("The plugins whose state to remove.", valueName: "plugin-id"))
    var plugins: [String] = []

    @Flag(help: "Remove every saved state of the container.")
    var all = false

    @OptionGroup var container: ContainerOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard all != !plugins.isEmpty else { throw ValidationError("name the plugins whose state to remove, or pass --all (not both)") }
        for plugin in plugins { _ = try StateSession.pluginID(plugin) }
    }

    func run() throws {
        let store = try StateSession.store(container)
        let folder = store.facade.container.path(of: .library) + "/" + SavedStateStore.folder + "/"
        var removed: [String] = []
        var failures: [String] = []
        if all {
            do {
                let result = try store.removeAll()
                removed = result.removed.map { folder + $0 }
                failures = result.failures.map(\.description)
            } catch {
                failures.append(error.description)
            }
        } else {
            for plugin in plugins {
                let id = try StateSession.pluginID(plugin)
                do {
                    try store.remove(id)
                    removed.append(store.path(of: id))
                } catch where error.reason == .notFound {
                    failures.append("no saved state for \(id): \(quoted: store.path(of: id)) does not exist")
                } catch {
                    failures.append(error.description)
                }
            }
        }
        // The failures are said even when the list of removed files cannot be written; they decide the exit code.
        let printed = Result { try StateSession.output(output.json ? [JSONOutput.encode(removed, pretty: true)] : removed.map { "removed \(quoted: $0)" }) }
        for failure in failures.dropLast() { StandardStream.writeError("plugboard state: " + ControlCharacters.escaped(failure)) }
        if let last = failures.last { try StateSession.fail(last) }
        try printed.get()
    }
}
