/// The load report written by a ``JSONWriter``: the same text as its `Codable` form through
/// `JSONEncoder` (sorted keys, pretty), for the listings that write a thousand of them.
extension LoadReport {
    /// Writes the report as its `Codable` form would be encoded, with a `cached` member when
    /// `cached` is given (a listing's; see ``ScannedLibrary/writeJSON(into:)``).
    func writeJSON(into writer: inout JSONWriter, cached: Bool? = nil) {
        writer.object { writer in
            if let abi {
                writer.key("abi")
                writer.object { writer in
                    writer.key("structSizes")
                    writer.object { writer in
                        for (name, size) in abi.sortedStructSizes {
                            writer.key(name)
                            writer.number(size)
                        }
                    }
                    writer.key("version")
                    abi.version.writeJSON(into: &writer)
                }
            }
            if let cached {
                writer.key("cached")
                writer.bool(cached)
            }
            if let failure {
                writer.key("failure")
                failure.writeJSON(into: &writer)
            }
            if let loadTime {
                writer.key("loadTime")
                writer.object { writer in
                    writer.key("nanoseconds")
                    writer.number(loadTime.nanoseconds)
                    writer.key("start")
                    writer.number(loadTime.start)
                }
            }
            writer.member("path", path)
            writer.key("plugins")
            writer.array(plugins) { $1.writeJSON(into: &$0) }
            writer.key("refused")
            writer.array(refused) { writer, refusal in
                writer.object { writer in
                    writer.key("failure")
                    refusal.failure.writeJSON(into: &writer)
                    writer.member("id", refusal.id)
                }
            }
            writer.member("sameFileAs", ifPresent: sameFileAs)
            if let sandbox {
                writer.key("sandbox")
                writer.object { writer in
                    writer.key("grants")
                    writer.array(sandbox.grants)
                    writer.key("layers")
                    writer.array(sandbox.layers)
                    writer.member("mode", ifPresent: sandbox.mode)
                }
            }
            writer.member("status", status.rawValue)
            writer.key("warnings")
            writer.array(warnings)
        }
    }
}

extension ScannedLibrary {
    /// Writes the library's report with its `cached` flag, as `plugboard list --json` shows each file.
    package func writeJSON(into writer: inout JSONWriter) {
        report.writeJSON(into: &writer, cached: cached)
    }
}

extension PluginSummary {
    /// Writes the summary as its `Codable` form would be encoded.
    fileprivate func writeJSON(into writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("concerns")
            writer.array(concerns.map(\.rawValue))
            writer.key("descriptor")
            writer.object { writer in
                writer.member("id", descriptor.id.rawValue)
                writer.member("name", descriptor.name)
                writer.key("priority")
                writer.number(descriptor.priority)
                writer.member("version", descriptor.version)
            }
            writer.key("functions")
            writer.array(functions) { writer, function in
                writer.object(strings: ["doc": function.doc, "name": function.name, "signature": function.signature])
            }
            writer.key("refusedFunctions")
            writer.array(refusedFunctions) { writer, refusal in
                writer.object(strings: ["name": refusal.name, "reason": refusal.reason])
            }
            writer.member("source", source.description)
        }
    }
}

extension LoadFailure {
    /// Writes the failure as its `Codable` form would be encoded.
    fileprivate func writeJSON(into writer: inout JSONWriter) {
        writer.object(strings: ["message": message, "stage": stage.rawValue, "systemError": systemError])
    }
}

extension ABIVersion {
    /// Writes the version as its `Codable` form would be encoded.
    fileprivate func writeJSON(into writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("major")
            writer.number(major)
            writer.key("minor")
            writer.number(minor)
        }
    }
}
