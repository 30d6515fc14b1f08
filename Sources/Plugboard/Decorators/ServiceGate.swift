import Synchronization

/// The host services one library is denied (``PluginDecorator/authorization(_:)``),
/// asked by every service entry point of the host side: files and invoke in process,
/// and the requests a worker relays. Thread-safe: plugins call from any thread.
///
/// The first denied call of each service is logged, naming the service, the library, the
/// plugins and the policy; later ones (a plugin retrying in a loop) only get `PB_ERR_DENIED`.
final class ServiceGate: Sendable {
    private struct Denial {
        let sentence: String
        var logged = false
    }

    private let denials = Mutex<[HostService: Denial]>([:])
    private let log: @Sendable (PluginLogRecord) -> Void

    /// A gate allowing everything until ``apply(_:library:plugins:)``; denials are logged to `log`.
    init(log: @escaping @Sendable (PluginLogRecord) -> Void) {
        self.log = log
    }

    /// Denies the library at `library` each service `policy` denies one of `plugins`, or, before the
    /// library has registered them (nil), each service the policy's default rule denies.
    func apply(_ policy: AccessPolicy, library: String, plugins: [PluginID]?) {
        var denied: [HostService: String] = [:]
        if let plugins {
            for plugin in plugins {
                for case .service(let service) in policy.denials(of: plugin) {
                    denied[service] = denied[service].map { "\($0), \(plugin)" } ?? plugin.rawValue
                }
            }
        } else {
            for case .service(let service) in policy.defaultRule.deny {
                denied[service] = "every plugin by default (the library has not registered its plugins yet)"
            }
        }
        denials.withLock { denials in
            denials = denied.reduce(into: [:]) { result, entry in
                let (service, who) = entry
                let sentence = "\(service) denied to \(library): the policy '\(policy.source)' denies it to \(who)"
                result[service] = Denial(sentence: sentence, logged: denials[service]?.logged ?? false)
            }
        }
    }

    /// nil when `service` is allowed; else the sentence for the caller (its first time is logged).
    func refusal(_ service: HostService) -> String? {
        let (sentence, first) = denials.withLock { denials -> (String?, Bool) in
            guard var denial = denials[service] else { return (nil, false) }
            defer { denial.logged = true; denials[service] = denial }
            return (denial.sentence, !denial.logged)
        }
        if let sentence, first {
            log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .warning,
                                message: sentence + " (PB_ERR_DENIED; later denials of \(service) to this library are not logged)"))
        }
        return sentence
    }
}
