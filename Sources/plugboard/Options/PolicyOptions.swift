import ArgumentParser
import Plugboard

/// `--policy FILE`: the authorization decorator's policy (JSON), for `run`, `list` and `inspect`.
struct PolicyOptions: ParsableArguments {
    @Option(name: .customLong("policy"),
            help: ArgumentHelp("Allow or deny each plugin each concern and host service, from this JSON file: {\"default\": {\"deny\": [NAME…]}, \"plugins\": {\"ID\": {\"allow\": [NAME…], \"deny\": [NAME…]}}}; NAME is a concern (launch, open-url, user-activity, remote-notifications, memory, protected-data, app-state, termination) or a service (files, invoke, post, observe).",
                               valueName: "file"),
            transform: WorkingDirectory.absolute)
    var path: String?

    func validate() throws {
        _ = try policy()
    }

    /// The policy, if one was named; a file that cannot be used is a usage error naming it, where and why.
    func policy() throws(ValidationError) -> AccessPolicy? {
        guard let path else { return nil }
        do {
            return try AccessPolicy(contentsOf: path)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
