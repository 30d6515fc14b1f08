import PlugboardWorkerProtocol

/// The binary layout of one scan cache record and of the report types inside it, in
/// the worker protocol's primitives (little-endian integers, `u32`-length-prefixed
/// UTF-8 strings, a presence byte before an optional). Each type writes its fields
/// in declaration order and reads them back in the same order; enums are written as
/// their raw text, so the layout survives a reordering of cases.
///
/// Every read is checked against the bytes left, and ids are validated again, so a
/// damaged file is a typed error, never a crash.
enum ScanCacheRecordCoding {
    /// Writes `key`.
    static func write(_ key: ScanCacheKey, to encoder: inout WireEncoder) {
        encoder.append(string: key.path)
        encoder.append(key.device)
        encoder.append(key.inode)
        encoder.append(Int64(key.size))
        write(key.modified, to: &encoder)
        write(key.changed, to: &encoder)
        write(key.hostABI, to: &encoder)
    }

    /// Reads what ``write(_:to:)`` wrote for a key after its path, which the caller read: `path`.
    static func readKey(path: String, from decoder: inout WireDecoder) throws(WorkerProtocolError) -> ScanCacheKey {
        ScanCacheKey(path: path, device: try decoder.readUInt64("key.device"),
                     inode: try decoder.readUInt64("key.inode"), size: Int(try decoder.readInt64("key.size")),
                     modified: try readDuration("key.modified", from: &decoder), changed: try readDuration("key.changed", from: &decoder),
                     hostABI: try readABIVersion(from: &decoder))
    }

    /// The bytes of `entry`'s body, which ``readEntry(_:from:)`` reads back given the record's kind.
    static func body(of entry: ScanCacheEntry) -> [UInt8] {
        var encoder = WireEncoder(capacity: 512)
        switch entry {
        case .scanned(let report): write(report, to: &encoder)
        case .crashed(let reason): write(reason, to: &encoder)
        }
        return encoder.bytes
    }

    /// Reads the body of an entry of `kind`, which must fill what `decoder` reads; nil for a file that
    /// only passed the checks, which has no entry.
    static func readEntry(_ kind: ScanCacheRecord.Kind, from decoder: inout WireDecoder) throws(WorkerProtocolError) -> ScanCacheEntry? {
        let entry: ScanCacheEntry? = switch kind {
        case .checked: nil
        case .scanned: .scanned(report: try readReport(from: &decoder))
        case .crashed: .crashed(reason: try readFailure(from: &decoder))
        }
        try decoder.requireEnd(of: "entry")
        return entry
    }

    /// Writes a duration (a time since the epoch): seconds, then attoseconds.
    static func write(_ duration: Duration, to encoder: inout WireEncoder) {
        encoder.append(duration.components.seconds)
        encoder.append(duration.components.attoseconds)
    }

    /// Reads what ``write(_:to:)`` wrote for a duration.
    static func readDuration(_ field: StaticString, from decoder: inout WireDecoder) throws(WorkerProtocolError) -> Duration {
        Duration(secondsComponent: try decoder.readInt64(field), attosecondsComponent: try decoder.readInt64(field))
    }

    /// Writes an ABI version: major, then minor.
    static func write(_ version: ABIVersion, to encoder: inout WireEncoder) {
        encoder.append(version.major)
        encoder.append(version.minor)
    }

    /// Reads what ``write(_:to:)`` wrote for an ABI version.
    static func readABIVersion(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> ABIVersion {
        ABIVersion(major: try decoder.readUInt32("abi.major"), minor: try decoder.readUInt32("abi.minor"))
    }

    private static func write(_ report: LoadReport, to encoder: inout WireEncoder) {
        encoder.append(string: report.path)
        encoder.append(string: report.status.rawValue)
        encoder.append(report.failure != nil)
        if let failure = report.failure { write(failure, to: &encoder) }
        encoder.append(optionalString: report.sameFileAs)
        encoder.append(report.abi != nil)
        if let abi = report.abi {
            write(abi.version, to: &encoder)
            let sizes = abi.sortedStructSizes
            encoder.append(UInt32(sizes.count))
            for (name, size) in sizes {
                encoder.append(string: name)
                encoder.append(Int64(size))
            }
        }
        encoder.append(UInt32(report.plugins.count))
        for plugin in report.plugins {
            encoder.append(string: plugin.descriptor.id.rawValue)
            encoder.append(string: plugin.descriptor.name)
            encoder.append(string: plugin.descriptor.version)
            encoder.append(plugin.descriptor.priority)
            encoder.append(UInt32(plugin.concerns.count))
            for concern in plugin.concerns { encoder.append(string: concern.rawValue) }
            encoder.append(string: plugin.source.description)
            encoder.append(UInt32(plugin.functions.count))
            for function in plugin.functions {
                encoder.append(string: function.name)
                encoder.append(string: function.signature)
                encoder.append(string: function.doc)
            }
            encoder.append(UInt32(plugin.refusedFunctions.count))
            for refusal in plugin.refusedFunctions {
                encoder.append(string: refusal.name)
                encoder.append(string: refusal.reason)
            }
        }
        encoder.append(UInt32(report.refused.count))
        for refusal in report.refused {
            encoder.append(string: refusal.id)
            write(refusal.failure, to: &encoder)
        }
        encoder.append(UInt32(report.warnings.count))
        for warning in report.warnings { encoder.append(string: warning) }
    }

    private static func readReport(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> LoadReport {
        let path = try decoder.readString("report.path")
        var report = LoadReport(path: path, status: try readRawValue("report.status", from: &decoder))
        if try decoder.readBool("report.failure") { report.failure = try readFailure(from: &decoder) }
        report.sameFileAs = try decoder.readOptionalString("report.sameFileAs")
        if try decoder.readBool("report.abi") {
            let version = try readABIVersion(from: &decoder)
            var sizes: [(name: String, size: Int)] = []
            for _ in 0..<(try decoder.readUInt32("abi.structSizes")) {
                sizes.append((try decoder.readString("abi.structSize.name"), Int(try decoder.readInt64("abi.structSize.size"))))
            }
            report.abi = LibraryABI(version: version, declared: sizes)
        }
        for _ in 0..<(try decoder.readUInt32("report.plugins")) {
            let text = try decoder.readString("plugin.id")
            let id: PluginID
            do {
                id = try PluginID(validating: text)
            } catch {
                throw .malformed(field: "plugin.id", cause: .invalidValue(0))
            }
            let name = try decoder.readString("plugin.name"), version = try decoder.readString("plugin.version")
            guard PluginDescriptor.refusal(nameBytes: name.utf8.count, versionBytes: version.utf8.count) == nil else {
                throw .malformed(field: name.utf8.count > PluginDescriptor.maximumTextLength ? "plugin.name" : "plugin.version",
                                 cause: .invalidValue(0))
            }
            let descriptor = PluginDescriptor(id: id, name: name, version: version, priority: try decoder.readInt32("plugin.priority"))
            var concerns: [PluginConcern] = []
            for _ in 0..<(try decoder.readUInt32("plugin.concerns")) {
                concerns.append(try readRawValue("plugin.concern", from: &decoder))
            }
            let source = try decoder.readString("plugin.source")
            var functions: [FunctionDeclaration] = []
            for _ in 0..<(try decoder.readUInt32("plugin.functions")) {
                functions.append(FunctionDeclaration(name: try decoder.readString("function.name"),
                                                     signature: try decoder.readString("function.signature"),
                                                     doc: try decoder.readString("function.doc")))
            }
            var refusedFunctions: [FunctionRefusal] = []
            for _ in 0..<(try decoder.readUInt32("plugin.refusedFunctions")) {
                refusedFunctions.append(FunctionRefusal(name: try decoder.readString("refusedFunction.name"),
                                                        reason: try decoder.readString("refusedFunction.reason")))
            }
            report.plugins.append(PluginSummary(descriptor: descriptor, concerns: concerns,
                                                source: source == PluginSource.builtIn.description ? .builtIn : .library(path: source),
                                                functions: functions, refusedFunctions: refusedFunctions))
        }
        for _ in 0..<(try decoder.readUInt32("report.refused")) {
            report.refused.append(PluginRefusal(id: try decoder.readString("refusal.id"), failure: try readFailure(from: &decoder)))
        }
        for _ in 0..<(try decoder.readUInt32("report.warnings")) {
            report.warnings.append(try decoder.readString("report.warning"))
        }
        return report
    }

    private static func write(_ failure: LoadFailure, to encoder: inout WireEncoder) {
        encoder.append(string: failure.stage.rawValue)
        encoder.append(string: failure.message)
        encoder.append(optionalString: failure.systemError)
    }

    private static func readFailure(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> LoadFailure {
        LoadFailure(try readRawValue("failure.stage", from: &decoder), try decoder.readString("failure.message"),
                    systemError: try decoder.readOptionalString("failure.systemError"))
    }

    /// Reads a string that must be a raw value of `Value` (a wrong one is reported by its field only).
    private static func readRawValue<Value: RawRepresentable<String>>(
        _ field: StaticString, from decoder: inout WireDecoder
    ) throws(WorkerProtocolError) -> Value {
        let text = try decoder.readString(field)
        guard let value = Value(rawValue: text) else { throw .malformed(field: "\(field)", cause: .invalidValue(0)) }
        return value
    }
}
