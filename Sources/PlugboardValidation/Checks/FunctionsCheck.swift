import Plugboard

/// The `functions` check: the host accepts every function the library's plugins declare.
enum FunctionsCheck {
    /// The check.
    static let check = ValidationCheck(
        name: "functions",
        description: "Every function a plugin declares is accepted: a valid name and signature, a function pointer, "
            + "declared once (a refused declaration is never called).") { subject in
        subject.withLoaded { loaded in
            let plugins = loaded.report.plugins
            let refused = plugins.flatMap(\.functionWarnings)
            guard refused.isEmpty else { return (.fail, refused.joined(separator: "; ")) }
            let accepted = plugins.reduce(0) { $0 + $1.functions.count }
            guard accepted > 0 else { return (.skipped, "no plugin declares functions") }
            return (.pass, "\(accepted) function(s) declared and accepted")
        }
    }
}
