import Foundation
import Synchronization

/// Standard output for reports: whole lines, in order, from any thread
/// (plugins may log from their own threads while the host prints events).
final class Console: Sendable {
    private let lock = Mutex(())

    /// Writes `text` and a newline as one unit.
    func line(_ text: String) {
        lock.withLock { _ in
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }

    /// Writes `value` as one line of compact JSON.
    func jsonLine(_ value: some Encodable) {
        line(JSONOutput.encode(value, pretty: false))
    }
}

/// The one JSON style of every `--json` output: sorted keys, unescaped slashes.
enum JSONOutput {
    static func encode(_ value: some Encodable, pretty: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            return #"{"error":"cannot encode the report"}"#
        }
    }
}
