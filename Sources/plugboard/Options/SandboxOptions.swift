import ArgumentParser
import Plugboard

extension SandboxMode: ExpressibleByArgument {}

/// `--sandbox`: how workers are confined, for `run`, `call`, `list` and `inspect`.
struct SandboxOptions: ParsableArguments {
    @Option(name: .customLong("sandbox"),
            help: ArgumentHelp("How plugin workers are confined by the kernel: 'best' (every layer this kernel has; a warning names what it lacks), 'strict' (a worker that cannot get every layer is not started) or 'off' (workers run with your rights and environment: for trusted plugins). The policy file's \"libraries\" grant more per library.",
                               valueName: "strict|best|off"))
    var mode: SandboxMode = .best

    /// A usage error when plugins run in process and something asks for a sandbox (`--sandbox strict`, or
    /// a policy that grants libraries sandbox rights): a sandbox needs a worker.
    func check(inProcess: Bool, policy: AccessPolicy?) throws(ValidationError) {
        guard inProcess else { return }
        if mode == .strict {
            throw ValidationError("--sandbox strict needs plugin workers, and --isolation none runs plugins in this process, where nothing can be confined")
        }
        if let policy, !policy.libraries.isEmpty {
            throw ValidationError("the policy file \(quoted: policy.source) grants libraries sandbox rights (\"libraries\"), which need plugin workers, and --isolation none runs plugins in this process, where nothing can be confined")
        }
    }

    /// What `report`'s library gets under this mode and `policy` (a load report made earlier, from
    /// the scan cache say, may describe another).
    func describing(_ report: LoadReport, policy: AccessPolicy?) -> LoadReport {
        guard report.status == .loaded else { return report }
        var report = report
        report.sandbox = SandboxSummary(library: report.path, mode: mode, policy: policy)
        return report
    }
}
