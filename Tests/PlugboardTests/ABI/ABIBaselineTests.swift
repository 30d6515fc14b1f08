import Foundation
import Plugboard
import Testing

/// The public C headers against the committed ABI baseline of the current minor
/// (Fixtures/abi-baseline): libabigail's `abidiff` finds no difference.
@Suite struct ABIBaselineTests {
    static let folder = TestPaths.fixtures + "/abi-baseline"

    @Test func theHeadersMatchTheBaselineOfTheCurrentMinor() throws {
        let tools = try PlugboardTests.run("/bin/sh", ["-c", "command -v abidw && command -v abidiff"])
        try #require(tools.status == 0, "abidw and abidiff are needed: install abigail-tools (.ci/run does)")
        let baseline = Self.folder + "/plugboard-1.\(ABIVersion.host.minor).abi"
        try #require(FileManager.default.fileExists(atPath: baseline),
                     "no ABI baseline for 1.\(ABIVersion.host.minor): regenerate it (Fixtures/abi-baseline/README.md)")
        let directory = try TemporaryDirectory("plugboard-abidiff")
        defer { directory.remove() }
        let current = directory.file("current.abi")
        let dumped = try PlugboardTests.run("/bin/bash", [Self.folder + "/dump.sh", current])
        try #require(dumped.status == 0, "dump.sh failed:\n\(dumped.output)\(dumped.errorOutput)")
        let compared = try PlugboardTests.run("/usr/bin/env", ["abidiff", baseline, current])
        #expect(compared.status == 0, """
            the public headers differ from the ABI baseline of 1.\(ABIVersion.host.minor) (abidiff status \(compared.status)); \
            a released layout must not change, an addition needs a new minor (Fixtures/abi-baseline/README.md):
            \(compared.output)\(compared.errorOutput)
            """)
    }
}
