#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemPackage

/// Which concerns and host services each plugin is allowed (``PluginDecorator/authorization(_:)``).
///
/// A plugin's rule, when the policy has one for its id, applies on top of the default
/// rule: it is denied what its rule denies, and what the default denies unless its
/// rule allows it. Everything else is allowed. Host services are called by a library,
/// not by one plugin (the C ABI's files and invoke calls carry no plugin id), so a
/// library is denied a service when any of its plugins is.
///
/// The policy also grants libraries' workers more than the default sandbox (``SandboxGrant``),
/// per library file name or path.
///
/// The file form (`plugboard --policy FILE`) is JSON, the format of every other
/// plugboard input, read with no extra dependency:
/// `{"default": {"deny": ["files"]}, "plugins": {"com.example.sync": {"allow": ["files"], "deny": ["invoke"]}},
/// "libraries": {"libsync.so": {"network": {"connect": [443]}}, "*": {"environment": ["HTTP_PROXY"]}}}`.
public struct AccessPolicy: Sendable {
    /// One rule: the rights it allows (lifting the default's denials) and those it denies.
    public struct Rule: Sendable, Equatable {
        /// Rights allowed even when the default rule denies them (meaningless in the default rule).
        public var allow: Set<AccessRight>
        /// Rights denied.
        public var deny: Set<AccessRight>

        /// A rule allowing `allow` and denying `deny`.
        public init(allow: Set<AccessRight> = [], deny: Set<AccessRight> = []) {
            self.allow = allow
            self.deny = deny
        }
    }

    /// Where the policy comes from (the file's path), named in every denial.
    public let source: String
    /// The rule of every plugin.
    public let defaultRule: Rule
    /// The rules of particular plugins, on top of the default.
    public let rules: [PluginID: Rule]
    /// The sandbox grants of particular libraries, by file name (`libx.so`) or absolute path; `*`
    /// is the grant of every library without one of its own.
    public let libraries: [String: SandboxGrant]

    /// The entries that name nothing loaded, as the policy file spells their place
    /// (`plugins.com.example.x`, `libraries.libx.so`): a rule for none of the plugins `loaded`, a
    /// grant for none of the library files `tried` (by path or file name; `*` names every one). A
    /// typo in a policy would otherwise grant or deny nothing, silently.
    public func unmatched(loaded: Set<PluginID>, tried: [String]) -> [String] {
        let names = Set(tried.map { $0.split(separator: "/").last.map(String.init) ?? $0 })
        let paths = Set(tried)
        return rules.keys.filter { !loaded.contains($0) }.map { "plugins.\($0.rawValue)" }.sorted()
            + libraries.keys.filter { $0 != "*" && !paths.contains($0) && !names.contains($0) }.map { "libraries.\($0)" }.sorted()
    }

    /// A policy made in code; `source` names it in denials ("the application's policy").
    public init(source: String, defaultRule: Rule = Rule(), rules: [PluginID: Rule] = [:],
                libraries: [String: SandboxGrant] = [:]) {
        self.source = source
        self.defaultRule = defaultRule
        self.rules = rules
        self.libraries = libraries
    }

    /// The sandbox grant of the library at `path`: the one given for its path, else for its file name, else `*`'s, else none.
    public func grant(forLibrary path: String) -> SandboxGrant {
        libraries[path] ?? path.split(separator: "/").last.flatMap { libraries[String($0)] } ?? libraries["*"] ?? SandboxGrant()
    }

    /// What `plugin` is denied.
    public func denials(of plugin: PluginID) -> Set<AccessRight> {
        guard let rule = rules[plugin] else { return defaultRule.deny }
        return defaultRule.deny.subtracting(rule.allow).union(rule.deny)
    }

    /// Whether `plugin` is denied `right`.
    public func denies(_ plugin: PluginID, _ right: AccessRight) -> Bool {
        denials(of: plugin).contains(right)
    }

    /// The policy in the JSON file at `path`; a file that cannot be read, is not a regular file or is
    /// larger than ``largestFile`` (these two refused unread), is not strict JSON
    /// (``JSONSyntax``: no trailing commas, no key twice in one object), or has a key, a name
    /// or a plugin id the format does not know is an error naming the file, where and why.
    public init(contentsOf path: String) throws(AccessPolicyError) {
        let status: FileStatus
        do {
            status = try FileStatus.of(path)
        } catch {
            throw AccessPolicyError(file: path, at: nil, cause: "cannot be read (\(error))")
        }
        guard status.isRegularFile else { throw AccessPolicyError(file: path, at: nil, cause: "is not a regular file") }
        guard status.size <= Self.largestFile else {
            throw AccessPolicyError(file: path, at: nil, cause: "is \(status.size) bytes long; the largest policy read is \(Self.largestFile >> 20) MiB")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AccessPolicyError(file: path, at: nil, cause: "cannot be read (\(Self.cause(of: error)))")
        }
        try self.init(json: data, source: path)
    }

    /// The largest policy file read: far above any real policy, and a bound on what a mistaken path
    /// (a disk image, a log) is read into memory.
    static let largestFile = 16 << 20

    /// The policy in `json`, the text of the file `source` names.
    public init(json: Data, source: String) throws(AccessPolicyError) {
        do {
            try JSONSyntax.check(json, refusingDuplicateKeys: true)
        } catch {
            throw AccessPolicyError(file: source, at: error.keyPath, cause: "is not valid JSON: \(error)")
        }
        let document: JSONValue
        do {
            document = try JSONValue(json: json)
        } catch {
            throw AccessPolicyError(file: source, at: nil, cause: "cannot be read: \(error)")
        }
        guard let top = document.asObject else {
            throw AccessPolicyError(file: source, at: nil, cause: "must hold a JSON object with \"default\" and \"plugins\"")
        }
        var defaultRule = Rule()
        var rules: [PluginID: Rule] = [:]
        var libraries: [String: SandboxGrant] = [:]
        for key in top.keys.sorted() {
            switch key {
            case "default":
                defaultRule = try Self.rule(top[key], at: "default", source)
            case "plugins":
                guard let plugins = top[key]?.asObject else {
                    throw AccessPolicyError(file: source, at: "plugins", cause: "must be an object from plugin id to rule")
                }
                for id in plugins.keys.sorted() {
                    let pluginID: PluginID
                    do {
                        pluginID = try PluginID(validating: id)
                    } catch {
                        throw AccessPolicyError(file: source, at: "plugins.\(id)", cause: "is not a plugin id: \(error)")
                    }
                    rules[pluginID] = try Self.rule(plugins[id], at: "plugins.\(id)", source)
                }
            case "libraries":
                guard let grants = top[key]?.asObject else {
                    throw AccessPolicyError(file: source, at: "libraries", cause: "must be an object from library file name or path to grant")
                }
                for library in grants.keys.sorted() {
                    guard !library.isEmpty, library.hasPrefix("/") || !library.contains("/") else {
                        throw AccessPolicyError(file: source, at: "libraries.\(library)", cause: "must be a file name (libx.so), an absolute path, or * (every other library)")
                    }
                    libraries[library] = try SandboxGrant(policyValue: grants[library], at: "libraries.\(library)", source: source)
                }
            default:
                throw AccessPolicyError(file: source, at: key, cause: "is not a policy key (the keys are \"default\", \"plugins\" and \"libraries\")")
            }
        }
        self.init(source: source, defaultRule: defaultRule, rules: rules, libraries: libraries)
    }

    /// The rule at `path`: an object with `allow` and `deny`, each a list of right names.
    private static func rule(_ value: JSONValue?, at path: String, _ source: String) throws(AccessPolicyError) -> Rule {
        guard let object = value?.asObject else {
            throw AccessPolicyError(file: source, at: path, cause: "must be an object with \"allow\" and \"deny\" lists")
        }
        var rule = Rule()
        for key in object.keys.sorted() {
            guard key == "allow" || key == "deny" else {
                throw AccessPolicyError(file: source, at: "\(path).\(key)", cause: "is not a rule key (a rule has \"allow\" and \"deny\")")
            }
            guard let names = object[key]?.asArray else {
                throw AccessPolicyError(file: source, at: "\(path).\(key)", cause: "must be a list of names")
            }
            var rights: Set<AccessRight> = []
            for (index, value) in names.enumerated() {
                guard let name = value.asString, let right = AccessRight(name: name) else {
                    throw AccessPolicyError(file: source, at: "\(path).\(key)[\(index)]",
                                            cause: "names \(Self.show(value)), which is not a concern or a service (known: \(AccessRight.names.joined(separator: ", ")))")
                }
                rights.insert(right)
            }
            if key == "allow" { rule.allow = rights } else { rule.deny = rights }
        }
        if let both = rule.allow.intersection(rule.deny).sorted().first {
            throw AccessPolicyError(file: source, at: path, cause: "both allows and denies \"\(both)\"")
        }
        return rule
    }

    /// A JSON value as the policy file spells it, for messages.
    private static func show(_ value: JSONValue) -> String {
        value.asString.map { String(reflecting: $0) } ?? value.text
    }

    /// Why a file could not be read, as the system said it: "No such file or directory".
    private static func cause(of error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.underlying as? POSIXError {
            return Errno(rawValue: underlying.code.rawValue).description
        }
        return String(describing: error)
    }
}

/// A policy that cannot be used: the file, where in it (a key path such as
/// `plugins.com.example.x.deny[1]`, and for a syntax error the line and column), and why.
public struct AccessPolicyError: Error, Sendable, CustomStringConvertible {
    /// The policy file.
    public let file: String
    /// The key path of the fault, when it is in a value.
    public let at: String?
    /// What is wrong.
    public let cause: String

    /// "the policy file 'p.json': plugins.com.x.deny[0] names "fils", which is not a concern or a service (…)".
    public var description: String {
        "the policy file '\(file)'" + (at.map { ": \($0)" } ?? "") + " \(cause)"
    }
}
