import CPlugboard
import Plugboard

/// The `loads` check: the library loads in a worker as a host loads it.
enum LoadsCheck {
    /// The check.
    static let check = ValidationCheck(
        name: "loads",
        description: "The library loads with RTLD_NOW in a worker: an exported \(PB_ENTRY_SYMBOL) function, "
            + "a compatible ABI record and struct sizes, init and register succeed.") { subject in
        let loaded = subject.load()
        defer { loaded.host.shutdown() }
        let report = loaded.report
        if let failure = report.failure { return (loaded.failureStatus, failure.description) }
        if !report.warnings.isEmpty { return (.warn, report.warnings.joined(separator: "; ")) }
        return (.pass, "loaded ABI \(report.abi.map { "\($0.version)" } ?? "?") with \(report.plugins.count) plugin(s)")
    }
}
