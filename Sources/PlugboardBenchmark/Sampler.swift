/// Measures a timed body so that each measurement lasts at least a target
/// duration: calibrates an event count, then keeps the best of repeated
/// measurements. Every side of every comparison is measured this one way.
struct Sampler {
    /// Each measurement lasts at least this long, in ns.
    let targetNanoseconds: UInt64

    /// One side of a comparison: its events per measurement and its best so far.
    struct Side {
        /// Events per measurement; only grows.
        var iterations: UInt64
        /// The best ns per event of the measurements so far.
        var best = Double.infinity
        /// The shortest accepted measurement, in ns.
        var shortest = UInt64.max
        /// The ns per event of the last measurement.
        var latest = Double.infinity
    }

    /// A side for `body`, calibrated to the target duration.
    func side(_ body: (UInt64) -> UInt64) -> Side {
        Side(iterations: calibrate(body))
    }

    /// One measurement of `body` that lasts at least the target duration: a
    /// shorter one (the calibration was thrown off by a stall) is discarded and
    /// repeated with more events.
    func measureOnce(_ body: (UInt64) -> UInt64, _ side: inout Side) {
        while true {
            let elapsed = body(side.iterations)
            if elapsed >= targetNanoseconds {
                side.latest = Double(elapsed) / Double(side.iterations)
                side.best = min(side.best, side.latest)
                side.shortest = min(side.shortest, elapsed)
                return
            }
            side.iterations = grown(side.iterations, elapsed: elapsed)
        }
    }

    /// An iteration count for which `body` should take the target duration
    /// (with a 25 % margin against noise); `measureOnce` enforces it.
    private func calibrate(_ body: (UInt64) -> UInt64) -> UInt64 {
        var iterations: UInt64 = 1
        while true {
            let elapsed = body(iterations)
            if elapsed >= targetNanoseconds / 8 || iterations >= 1 << 40 {
                return grown(iterations, elapsed: elapsed)
            }
            iterations *= 4
        }
    }

    /// `iterations` scaled so that `elapsed` would reach the target with a 25 % margin; never less than before.
    private func grown(_ iterations: UInt64, elapsed: UInt64) -> UInt64 {
        let scaled = Double(iterations) * Double(targetNanoseconds) * 1.25 / Double(max(elapsed, 1))
        let capped = min(scaled.rounded(.up), Double(UInt64(1) << 40))
        return max(iterations + 1, UInt64(capped))
    }
}
