// The Swift plugin of the benchmark's language rows (BENCHMARKS.md, "Swift plugins: `open_url` against C"):
// the same trivial work as the C, C++ and Rust ones, written the way the Swift example is.
// The benchmark copies libPlugboardBenchmarkSwiftPlugin.so into one folder per plugin count.
import Glibc
import PlugboardSDKMacros
import Synchronization

/// Registers `$PLUGBOARD_BENCHMARK_PLUGINS` plugins (default 1), with ids that name the count.
@c(plugboard_entry)
public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
    PluginLibrary.entry { _ in
        let count = getenv("PLUGBOARD_BENCHMARK_PLUGINS").flatMap { Int(String(cString: $0)) } ?? 1
        return try (0..<count).map { try BenchmarkPlugin(id: "org.plugboard.benchmark.swift\(count).p\($0)") }
    }
}

/// Answers whether a URL has the `benchapp://` scheme, and counts memory warnings; its entries are
/// its own (`@Plugin`).
@Plugin
final class BenchmarkPlugin: OpenURLPlugin, MemoryWarningPlugin {
    let descriptor: PluginDescriptor
    /// Memory warnings received (relaxed: the count matters, not the order).
    let warnings = Atomic<Int>(0)

    init(id: String) throws {
        descriptor = PluginDescriptor(id: try PluginID(validating: id), version: "1.0.0")
    }

    func open(url: TextSpan, options: TextSpan) -> Bool {
        url.hasBytePrefix("benchapp://")
    }

    func didReceiveMemoryWarning() {
        warnings.wrappingAdd(1, ordering: .relaxed)
    }
}
