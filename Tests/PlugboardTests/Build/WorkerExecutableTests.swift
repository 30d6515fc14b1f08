import Foundation
import Testing
@testable import Plugboard

/// The plugin worker links FoundationEssentials and not Foundation proper (CoreFoundation,
/// FoundationInternationalization, ICU): in every worker's start those cost about 3 MiB of
/// resident memory and half a millisecond (BENCHMARKS.md, worker start-up). The test build links
/// the Swift libraries dynamically, so the worker's needed libraries show what its code imports.
@Suite struct WorkerExecutableTests {
    @Test func theWorkerNeedsFoundationEssentialsOnly() throws {
        let worker = TestPaths.worker
        let needed = try ELFFileReader.reading(worker) { (file) throws(LoadFailure) in try file.dynamicSymbols()?.dependencies().needed }
        let names = try #require(needed)
        #expect(names.contains("libFoundationEssentials.so"), "\(names)")
        let proper = names.filter { $0.hasPrefix("libFoundation.") || $0.hasPrefix("libFoundationInternationalization") || $0.contains("ICU") }
        #expect(proper.isEmpty, "the worker needs \(proper)")
    }
}
