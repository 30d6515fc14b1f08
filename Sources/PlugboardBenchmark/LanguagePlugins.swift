import Foundation
import Glibc
import PlugboardChildProcess

/// Builds the plugins of the language rows: for each language and plugin count N, a folder with
/// ONE library that registers N plugins (ids `org.plugboard.benchmark.<language><N>.p<i>`). Every
/// plugin takes part in two events with the same work in each language: `open_url` answers whether
/// the URL starts with `benchapp://`, and a memory warning adds one to the plugin's counter
/// (a relaxed atomic: Rust and Swift require a callback's state to be thread-safe, so C and C++ do
/// the same). Built fresh on every run, under `$TMPDIR/plugboard-benchmark-languages`:
///
/// - C: `cc -std=c11 -O2 -shared -fPIC -fvisibility=hidden -DPLUGINS=N` of ``cSource``;
/// - C++: `c++ -std=c++17 -O2 -shared -fPIC -fvisibility=hidden` of ``cppSource(count:)`` (N classes);
/// - Rust: `cargo build --offline --release` of a crate with N plugin types (``rustSource(count:)``)
///   depending on plugins/rust-sdk by path;
/// - Swift: a copy of libPlugboardBenchmarkSwiftPlugin.so (the package's `.dynamic` product, built
///   in the benchmark's own configuration), which registers `$PLUGBOARD_BENCHMARK_PLUGINS` plugins.
struct LanguagePlugins {
    /// The package root (for include/ and plugins/rust-sdk).
    let packageRoot: String
    /// The built Swift plugin library.
    let swiftLibrary: String
    /// Where the plugins are built.
    let root: String

    /// The environment variable that tells the Swift plugin how many plugins to register.
    static let swiftCountVariable = "PLUGBOARD_BENCHMARK_PLUGINS"

    init(packageRoot: String, swiftLibrary: String) {
        self.packageRoot = packageRoot
        self.swiftLibrary = swiftLibrary
        let temporary = FileManager.default.temporaryDirectory.path
        root = (temporary.hasSuffix("/") ? temporary : temporary + "/") + "plugboard-benchmark-languages"
    }

    /// The folder of `language`'s library with `count` plugins.
    func directory(_ language: PluginLanguage, count: Int) -> String {
        root + "/\(language.folder)-\(count)"
    }

    /// Builds every language's library for each count; progress goes to standard error.
    func build(counts: [Int]) throws {
        try Files.remove(root)
        try Files.makeDirectory(root)
        let include = packageRoot + "/include"
        try Files.write(Self.cSource, to: root + "/bench.c")
        for count in counts {
            Progress.say("languages: building the C, C++, Rust and Swift libraries of \(count) plugin(s) …")
            for language in PluginLanguage.allCases { try Files.makeDirectory(directory(language, count: count)) }
            try run("cc", ["-std=c11", "-Wall", "-Wextra", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-DPLUGINS=\(count)",
                           "-I", include, root + "/bench.c", "-o", directory(.c, count: count) + "/bench.so"])
            let cpp = root + "/bench-\(count).cpp"
            try Files.write(Self.cppSource(count: count), to: cpp)
            try run("c++", ["-std=c++17", "-Wall", "-Wextra", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
                            "-I", include, cpp, "-o", directory(.cplusplus, count: count) + "/bench.so"])
            let crate = root + "/rust-\(count).src"
            try Files.makeDirectory(crate + "/src")
            try Files.write(Self.rustManifest(count: count, sdk: packageRoot + "/plugins/rust-sdk"), to: crate + "/Cargo.toml")
            try Files.write(Self.rustSource(count: count), to: crate + "/src/lib.rs")
            try run(Self.cargo(), ["build", "--offline", "--release", "--quiet", "--manifest-path", crate + "/Cargo.toml",
                                   "--target-dir", root + "/rust-target"])
            try FileManager.default.copyItem(atPath: root + "/rust-target/release/libbench_rust_\(count).so",
                                             toPath: directory(.rust, count: count) + "/bench.so")
            try FileManager.default.copyItem(atPath: swiftLibrary, toPath: directory(.swift, count: count) + "/bench.so")
        }
    }

    /// Runs a compiler to its end; throws with its output when it fails.
    private func run(_ program: String, _ arguments: [String]) throws {
        try Files.build(program, arguments, log: root + "/build.log")
    }

    /// `cargo` on PATH, else rustup's in `$CARGO_HOME/bin` or `~/.cargo/bin`.
    private static func cargo() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let rustup = [environment["CARGO_HOME"].map { $0 + "/bin" }, environment["HOME"].map { $0 + "/.cargo/bin" }]
        for directory in path + rustup.compactMap({ $0 }) where Files.isExecutable(directory + "/cargo") {
            return directory + "/cargo"
        }
        throw BenchmarkError("cargo was not found on PATH, in $CARGO_HOME/bin or in ~/.cargo/bin: install Rust (rustup)")
    }

    /// The C plugin: `PLUGINS` plugins in one library, written against the ABI by hand.
    static let cSource = """
        /* Generated by plugboard-benchmark: the C plugin of the language rows. */
        #include <plugboard.h>
        #include <stdio.h>
        #include <string.h>

        typedef struct bench_plugin {
            char id[64];
            unsigned long warnings;
        } bench_plugin_t;

        static bench_plugin_t plugins[PLUGINS];

        static bool open_url(void *ctx, const char *url, size_t url_len, const char *options_json, size_t options_len) {
            (void)ctx;
            (void)options_json;
            (void)options_len;
            static const char scheme[] = "benchapp://";
            return url_len >= sizeof scheme - 1 && memcmp(url, scheme, sizeof scheme - 1) == 0;
        }

        static void did_receive_memory_warning(void *ctx) {
            __atomic_fetch_add(&((bench_plugin_t *)ctx)->warnings, 1, __ATOMIC_RELAXED);
        }

        static const pb_open_url_t open_url_table = {.struct_size = sizeof(pb_open_url_t), .open_url = open_url};
        static const pb_memory_t memory_table = {
            .struct_size = sizeof(pb_memory_t),
            .did_receive_memory_warning = did_receive_memory_warning,
        };

        static bool bench_init(const pb_host_t *host) {
            (void)host;
            return true;
        }

        static bool register_plugins(const pb_registrar_t *registrar) {
            for (int index = 0; index < PLUGINS; index++) {
                snprintf(plugins[index].id, sizeof plugins[index].id, "org.plugboard.benchmark.c%d.p%d", PLUGINS, index);
                pb_plugin_t plugin = {
                    .struct_size = sizeof(pb_plugin_t),
                    .id = plugins[index].id,
                    .name = "",
                    .version = "1.0.0",
                    .ctx = &plugins[index],
                    .open_url = &open_url_table,
                    .memory = &memory_table,
                };
                if (registrar->add_plugin(registrar, &plugin) != PB_OK) return false;
            }
            return true;
        }

        static const pb_entry_t entry = {
            .struct_size = sizeof(pb_entry_t),
            .abi_major = PB_ABI_VERSION_MAJOR,
            .abi_minor = PB_ABI_VERSION_MINOR,
            .init = bench_init,
            .register_plugins = register_plugins,
        };

        PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }

        """

    /// The C++ plugin: `count` classes (plugin.hpp takes one class per plugin) sharing one base.
    static func cppSource(count: Int) -> String {
        let classes = (0..<count).map { index in
            "struct P\(index) : BenchPlugin<P\(index)> {\n"
                + "    static constexpr plugboard::PluginInfo info = {\"org.plugboard.benchmark.cpp\(count).p\(index)\", \"\", \"1.0.0\", 0};\n};\n"
        }
        return """
            // Generated by plugboard-benchmark: the C++ plugin of the language rows.
            #include <plugboard/cpp/plugin.hpp>

            #include <atomic>
            #include <string_view>

            template <class Self>
            class BenchPlugin : public plugboard::Plugin<Self> {
            public:
                bool open_url(std::string_view url, std::string_view /*options_json*/) {
                    constexpr std::string_view scheme = "benchapp://";
                    return url.substr(0, scheme.size()) == scheme;
                }
                void did_receive_memory_warning() { warnings_.fetch_add(1, std::memory_order_relaxed); }

            private:
                std::atomic<unsigned long> warnings_{0};
            };

            \(classes.joined())
            PLUGBOARD_EXPORT_PLUGINS(\((0..<count).map { "P\($0)" }.joined(separator: ", ")))

            """
    }

    /// The Rust crate's manifest: a cdylib depending on the SDK at `sdk` by path.
    static func rustManifest(count: Int, sdk: String) -> String {
        """
        [package]
        name = "bench-rust-\(count)"
        version = "0.1.0"
        edition = "2021"
        publish = false

        [lib]
        crate-type = ["cdylib"]
        path = "src/lib.rs"

        [dependencies]
        plugboard = { path = "\(sdk)" }

        [profile.release]
        panic = "unwind"

        """
    }

    /// The Rust plugin: `count` plugin types (the SDK's `Plugin::ID` is a constant per type).
    static func rustSource(count: Int) -> String {
        let definitions = (0..<count).map { "bench_plugin!(P\($0), \"org.plugboard.benchmark.rust\(count).p\($0)\");\n" }
        let exports = (0..<count).map { "    P\($0) => [OpenUrlPlugin, MemoryPlugin],\n" }
        return """
            // Generated by plugboard-benchmark: the Rust plugin of the language rows.
            use plugboard::{Host, MemoryPlugin, OpenUrlPlugin, Plugin};
            use std::sync::atomic::{AtomicU64, Ordering};

            macro_rules! bench_plugin {
                ($name:ident, $id:literal) => {
                    struct $name {
                        warnings: AtomicU64,
                    }
                    impl Plugin for $name {
                        const ID: &'static str = $id;
                        const VERSION: &'static str = "1.0.0";
                        fn new(_host: Host) -> Result<Self, String> {
                            Ok($name { warnings: AtomicU64::new(0) })
                        }
                    }
                    impl OpenUrlPlugin for $name {
                        fn open_url(&self, url: &str, _options_json: &str) -> bool {
                            url.starts_with("benchapp://")
                        }
                    }
                    impl MemoryPlugin for $name {
                        fn did_receive_memory_warning(&self) {
                            self.warnings.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                };
            }

            \(definitions.joined())
            plugboard::export_plugins! {
            \(exports.joined())}

            """
    }
}
