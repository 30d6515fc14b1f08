import ArgumentParser
import Plugboard

/// The decorators `run` wraps around the plugins: `--trace-plugin`, `--confine-threads`, `--policy`.
struct DecoratorOptions: ParsableArguments {
    @Option(name: .customLong("trace-plugin"),
            help: ArgumentHelp("Log every call to this plugin (an id, or 'all'): events, functions, notification deliveries, save/restore state; arguments, answer, duration, at level debug; repeatable.",
                               valueName: "id|all"))
    var traced: [String] = []

    @Flag(name: .customLong("confine-threads"),
          help: "Deliver log lines and notification completions that plugin threads send on the dispatch thread, after each event and while a notification is awaited.")
    var confineThreads = false

    @OptionGroup var policy: PolicyOptions

    func validate() throws {
        for id in traced where id != "all" {
            do {
                _ = try PluginID(validating: id)
            } catch {
                throw ValidationError("--trace-plugin \(quoted: id) is neither a plugin id nor 'all': \(error)")
            }
        }
    }

    /// The decorators asked for (``PluginHost`` stacks them in its fixed order).
    func decorators() throws -> [PluginDecorator] {
        var decorators: [PluginDecorator] = []
        if let policy = try policy.policy() { decorators.append(.authorization(policy)) }
        if traced.contains("all") {
            decorators.append(.tracing(.all))
        } else if !traced.isEmpty {
            decorators.append(.tracing(.only(Set(traced.compactMap { try? PluginID(validating: $0) }))))
        }
        if confineThreads { decorators.append(.threadConfinement) }
        return decorators
    }
}
