import ArgumentParser

/// `--call-timeout`: how long one plugin call may run before the host says so.
struct CallTimeoutOptions: ParsableArguments {
    // Taken unconditionally, so that "-1" is a value to refuse, not an unknown option.
    @Option(name: .customLong("call-timeout"), parsing: .unconditional,
            help: ArgumentHelp(
                "Seconds one plugin call may take (0.001 to 86400). In a worker the call is then named and its worker killed; in process (run --isolation none) it is named but cannot be stopped: the host waits. 0 turns it off; the default is 10.",
                valueName: "seconds"),
            transform: CallTimeoutOptions.seconds(in:))
    var seconds: Double = 10

    /// The timeout for the host; nil when turned off.
    var timeout: Duration? {
        seconds == 0 ? nil : .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// The seconds `text` writes: a finite number, and not one so small that it reads as 0 (`1e-400`),
    /// which would turn the timeout off.
    static func seconds(in text: String) throws -> Double {
        guard let value = Double(text), value.isFinite else {
            throw ValidationError("--call-timeout takes a number of seconds, 0 (off) or from 0.001 to 86400, not \(quoted: text)")
        }
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        if value == 0, mantissa.contains(where: { ("1"..."9").contains($0) }) {
            throw ValidationError("--call-timeout \(quoted: text) is too small to tell from 0, which turns it off; the least is 0.001")
        }
        return value
    }

    func validate() throws {
        guard seconds == 0 || (0.001...86_400).contains(seconds) else {
            throw ValidationError("--call-timeout must be 0 (off) or from 0.001 to 86400 seconds, got \(seconds)")
        }
    }
}
