import Testing
@testable import Plugboard

/// ``DurationText`` picks the largest unit that keeps a duration at least 1 and rounds half up
/// to its unit's precision, in whole numbers.
@Suite struct DurationTextTests {
    @Test(arguments: [(0, "0 ns"), (999, "999 ns"), (1_000, "1.0 µs"), (1_249, "1.2 µs"), (1_250, "1.3 µs"),
                      (12_345, "12.3 µs"), (999_949, "999.9 µs"), (1_000_000, "1.00 ms"), (1_125_000, "1.13 ms"),
                      (4_104_999, "4.10 ms"), (999_994_999, "999.99 ms"), (1_000_000_000, "1.00 s"),
                      (1_204_999_999, "1.20 s"), (61_005_000_000, "61.01 s")] as [(UInt64, String)])
    func durationsAreShownInTheirUnit(nanoseconds: UInt64, text: String) {
        #expect(DurationText.of(nanoseconds: nanoseconds) == text)
    }

    @Test func theLongestDurationIsShownWithoutOverflow() {
        #expect(DurationText.of(nanoseconds: .max) == "18446744073.71 s")
    }
}
