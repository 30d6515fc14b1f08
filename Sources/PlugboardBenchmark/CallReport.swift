/// The goals of the call benchmark.
enum CallGoals {
    /// A prepared call in process may cost at most this many times raw libffi …
    static let libffiRatio = 1.5
    /// … and must be at least this many times faster than Python's ctypes;
    static let ctypesFactor = 10.0
    /// into a worker a call may cost at most this many times the raw channel round trip.
    static let floorRatio = 1.3
}

/// Renders the call benchmark as plain-text lines or as its BENCHMARKS.md section.
enum CallReport {
    /// One-line verdicts against ``CallGoals``.
    static func verdicts(_ calls: CallResults) -> [String] {
        var lines = ["A prepared call in process within \(Format.fixed(CallGoals.libffiRatio, 1))× of raw libffi: "
            + (calls.preparedOverLibffi <= CallGoals.libffiRatio ? "MET" : "MISSED")
            + " (prepared \(Format.fixed(calls.prepared, 1)) ns, libffi \(Format.fixed(calls.libffi, 1)) ns: \(Format.ratio(calls.preparedOverLibffi)))"]
        if let factor = calls.ctypesOverOurs, let ctypes = calls.ctypes {
            lines.append("At least \(Format.fixed(CallGoals.ctypesFactor, 0))× faster than ctypes: "
                + (factor >= CallGoals.ctypesFactor ? "MET" : "MISSED")
                + " (ctypes \(Format.fixed(ctypes, 1)) ns: a prepared call is \(Format.fixed(factor, 1))× faster)")
        } else {
            lines.append("At least \(Format.fixed(CallGoals.ctypesFactor, 0))× faster than ctypes: not measured (\(calls.ctypesNote ?? "no python3"))")
        }
        if let ratio = calls.workerOverFloor, let worker = calls.worker, let floor = calls.channelFloor {
            lines.append("Into a worker within \(Format.fixed(CallGoals.floorRatio, 1))× the raw channel round trip: "
                + (ratio <= CallGoals.floorRatio ? "MET" : "MISSED")
                + " (ours \(Format.fixed(worker, 1)) ns, round trip \(Format.fixed(floor, 1)) ns: \(Format.ratio(ratio)))")
        } else {
            lines.append("Into a worker within \(Format.fixed(CallGoals.floorRatio, 1))× the raw channel round trip: "
                + "not measured (no plugboard-worker)")
        }
        return lines
    }

    /// The rows: side, ns per call, ratio to raw libffi.
    private static func rows(_ calls: CallResults) -> [(String, Double?)] {
        [
            ("direct C function pointer", calls.direct),
            ("raw libffi from C, prepared cif", calls.libffi),
            ("ours in process, resolved handle", calls.ours),
            ("ours in process, prepared call", calls.prepared),
            ("a plugin's invoke, in process", calls.invoke),
            ("a plugin's prepared invoke, in process", calls.preparedInvoke),
            ("Python ctypes (argtypes set)", calls.ctypes),
            ("ours into a worker, resolved handle", calls.worker),
            ("raw channel round trip (C echo process)", calls.channelFloor),
        ]
    }

    /// The plain-text table.
    static func table(_ calls: CallResults) -> [String] {
        var lines = ["Calls: ns per call of double weigh(int32, double, string), best of \(calls.repetitions), interleaved",
                     Format.left("side", 40) + Format.right("ns/call", 10) + Format.right("/ libffi", 10)]
        for (name, value) in rows(calls) {
            lines.append(Format.left(name, 40) + Format.right(value.map { Format.fixed($0, 1) } ?? "—", 10)
                         + Format.right(value.map { Format.ratio($0 / calls.libffi) } ?? "—", 10))
        }
        return lines + verdicts(calls)
    }

    /// The BENCHMARKS.md section's body (under its heading).
    static func markdown(_ calls: CallResults) -> String {
        var lines = [
            "ns per call of `double weigh(int32_t count, double each, const char *label)` (a plugin function declared "
                + "`double (int32, double, string)`, called with `3, 2.5, \"abc\"`), each side's best of \(calls.repetitions) "
                + "measurements, the sides interleaved (direct, libffi, ours through a handle, ours prepared, a plugin's invoke and prepared invoke "
                + "(a loop in the plugin, timed around one call of it), into a worker, the channel floor, ctypes, then again); each measurement lasts "
                + "at least the target duration (shortest: \(Format.milliseconds(calls.shortestMeasurement)) ms). ctypes is timed "
                + "inside Python (`time.perf_counter_ns` around the loop), on the function pointer it reaches through `plugboard_entry`.",
            "",
            "| side | ns per call | × raw libffi |",
            "|---|---:|---:|",
        ]
        for (name, value) in rows(calls) {
            lines.append("| \(name) | \(value.map { Format.fixed($0, 1) } ?? "not measured") | "
                         + "\(value.map { Format.ratio($0 / calls.libffi) } ?? "—") |")
        }
        lines += [""] + verdicts(calls).map { "- " + $0 }
        return lines.joined(separator: "\n")
    }
}
