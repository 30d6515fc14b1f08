import Foundation
import Glibc
import Synchronization
import Testing
@testable import Plugboard

extension PluginCompiler {
    /// Like ``fixture(_:in:_:)``, but tolerates the helpers the fixture leaves unused
    /// under some flags: with FIX_ENTRY_NULL, FIX_NO_REGISTER, FIX_NO_PLUGINS or with
    /// no concern at all, `-Wall -Werror` refuses the fixture (unused `say`, `entry`,
    /// `register_plugins`, `describe`).
    ///
    /// Each set of definitions is compiled once per test process; every call writes a
    /// fresh copy (a new inode, so a new library for the loader and for `dlopen`).
    @discardableResult
    static func lenientFixture(_ name: String, in directory: String, _ definitions: [String]) throws -> String {
        let path = directory + "/" + name
        try FixtureCache.library(definitions).write(to: URL(fileURLWithPath: path))
        guard chmod(path, 0o755) == 0 else { throw TestFailure("chmod \(path) failed") }
        return path
    }
}

/// The compiled bytes of `configurable_plugin.c`, by definitions.
enum FixtureCache {
    private static let built = Mutex<[[String]: Data]>([:])

    static func library(_ definitions: [String]) throws -> Data {
        if let data = built.withLock({ $0[definitions] }) { return data }
        let scratch = try TemporaryDirectory("plugboard-fixture")
        defer { scratch.remove() }
        let output = try PluginCompiler.compile(
            TestPaths.fixtures + "/configurable_plugin.c", to: scratch.file("fixture.so"),
            flags: ["-Wno-unused-function", "-Wno-unused-const-variable"] + definitions.map { "-D" + $0 })
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        built.withLock { $0[definitions] = data }
        return data
    }
}

/// The two good plugins every corpus folder holds, one sorting before and one
/// after the bad file, so a bad file that stopped the scan would show.
enum GoodPlugins {
    static let firstFile = "a_good.so"
    static let lastFile = "z_good.so"
    static let firstID = "com.good.first"
    static let lastID = "com.good.last"
    static let ids = [firstID, lastID]

    /// A plugin that launches, broadcasts, and logs every callback.
    static func definitions(id: String) -> [String] {
        ["FIX_ID=\"\(id)\"", "FIX_LAUNCH=1", "FIX_BROADCASTS", "FIX_TERMINATE"]
    }

    /// Builds both into `directory`.
    static func build(in directory: String) throws {
        try PluginCompiler.lenientFixture(firstFile, in: directory, definitions(id: firstID))
        try PluginCompiler.lenientFixture(lastFile, in: directory, definitions(id: lastID))
    }
}

/// What the loader must say about one bad file.
struct CorpusExpectation {
    /// The path the report is about.
    let path: String
    /// "failed", or "loaded" for a library that lost only some plugins.
    var status = "failed"
    /// The failing stage; nil when the library loaded.
    let stage: String?
    /// Words the failure message must contain.
    let keywords: [String]
    /// Words the system error must contain, when the system said something.
    var systemKeywords: [String] = []
    /// Ids the library registered despite its problem.
    var registeredIDs: [String] = []
    /// Words one refusal must contain, when the library lost a plugin.
    var refusalKeywords: [String] = []
    /// Whether the library's `deinit` must (true) or must not (false) run during loading.
    var deinitDuringLoad: Bool? = nil
}

/// The bad files: each one a real file that the loader must refuse with one clear line.
enum BadPlugin: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case textFile, emptyFile, truncatedTo100Bytes, truncatedInHalf, foreignMachine, elf32, relocatableObject,
         danglingSymlink, entryReturnsNull, noRegisterFunction, abiMajorMismatch, newerABIMinor, entryStructTooSmall,
         pluginStructTooSmall, vtableStructTooSmall, nullID, emptyID, malformedID, notReverseDNSID,
         sameIDTwiceInOneLibrary, noPlugins, initFails, registerFails,
         dataSymbolEntry, missingEntry, undefinedEntry, threadLocalEntry, entryOutsideCode, malformedSymbolTable,
         systemLibraryWithoutEntry, crossCompiledForeignMachine

    var testDescription: String { rawValue }

    /// Every case that needs nothing but the system C compiler.
    static var alwaysAvailable: [BadPlugin] {
        allCases.filter { $0 != .systemLibraryWithoutEntry && $0 != .crossCompiledForeignMachine }
    }

    /// The foreign machine patched into e_machine, and the name the loader should print for it.
    static var foreignELFMachine: (number: UInt8, name: String) {
        #if arch(arm64)
        (62, "x86-64")
        #else
        (183, "AArch64")
        #endif
    }

    /// Creates the bad file in `directory` (next to ``GoodPlugins``, already built) and says what to expect.
    func make(in directory: String) throws -> CorpusExpectation {
        let good = directory + "/" + GoodPlugins.firstFile
        func path(_ name: String) -> String { directory + "/" + name }
        func fixture(_ name: String, _ definitions: [String]) throws -> String {
            try PluginCompiler.lenientFixture(name, in: directory, definitions + ["FIX_TERMINATE"])
        }
        func library(_ name: String, _ source: String, flags: [String] = []) throws -> String {
            let scratch = try TemporaryDirectory("plugboard-corpus-source")
            defer { scratch.remove() }
            try scratch.write("source.c", source + "\n")
            return try PluginCompiler.compile(scratch.file("source.c"), to: path(name), flags: flags)
        }
        func bytes(of file: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: file))) }
        func write(_ bytes: [UInt8], _ name: String) throws -> String {
            try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
            return path(name)
        }
        switch self {
        case .textFile:
            let file = path("x.so")
            try "this is a text file, not a library\n".write(toFile: file, atomically: false, encoding: .utf8)
            return CorpusExpectation(path: file, stage: "open", keywords: ["not a shared library", "text"])
        case .emptyFile:
            let file = try write([], "m_empty.so")
            return CorpusExpectation(path: file, stage: "open", keywords: ["not a shared library", "empty"])
        case .truncatedTo100Bytes:
            let file = try write(Array(try bytes(of: good).prefix(100)), "m_truncated100.so")
            return CorpusExpectation(path: file, stage: "open", keywords: ["truncated ELF file", "100 bytes"])
        case .truncatedInHalf:
            let all = try bytes(of: good)
            let file = try write(Array(all.prefix(all.count / 2)), "m_half.so")
            return CorpusExpectation(path: file, stage: "open", keywords: ["truncated ELF file", "\(all.count / 2) bytes"])
        case .foreignMachine:
            var all = try bytes(of: good)
            all[18] = Self.foreignELFMachine.number
            all[19] = 0
            let file = try write(all, "m_foreign.so")
            return CorpusExpectation(path: file, stage: "open",
                                     keywords: ["built for \(Self.foreignELFMachine.name)", "machine \(Self.foreignELFMachine.number)", "this host is"])
        case .elf32:
            var all = try bytes(of: good)
            all[4] = 1
            let file = try write(all, "m_elf32.so")
            return CorpusExpectation(path: file, stage: "open", keywords: ["32-bit", "ELFCLASS32"])
        case .relocatableObject:
            let file = path("m_object.so")
            try PluginCompiler.compile(TestPaths.fixtures + "/configurable_plugin.c", to: file,
                                       flags: ["-c", "-DFIX_ID=\"com.bad.object\"", "-DFIX_TERMINATE"])
            return CorpusExpectation(path: file, stage: "open", keywords: ["not a shared library", "relocatable object"])
        case .danglingSymlink:
            let file = path("m_dangling.so")
            guard symlink("nowhere/missing.so", file) == 0 else { throw TestFailure("symlink failed") }
            return CorpusExpectation(path: file, stage: "scan", keywords: ["does not exist"],
                                     systemKeywords: ["No such file or directory"])
        case .entryReturnsNull:
            let file = try fixture("m_entry_null.so", ["FIX_ID=\"com.bad.entrynull\"", "FIX_ENTRY_NULL"])
            return CorpusExpectation(path: file, stage: "entry", keywords: ["plugboard_entry", "returned NULL"])
        case .noRegisterFunction:
            let file = try fixture("m_no_register.so", ["FIX_ID=\"com.bad.noregister\"", "FIX_NO_REGISTER"])
            return CorpusExpectation(path: file, stage: "entry", keywords: ["register_plugins", "required"])
        case .abiMajorMismatch:
            let file = try fixture("m_abi_major.so", ["FIX_ID=\"com.bad.major\"", "FIX_ABI_MAJOR=2"])
            return CorpusExpectation(path: file, stage: "version", keywords: ["major", "field abi_major", "plugin 2", "host 1"])
        case .newerABIMinor:
            let file = try fixture("m_abi_minor.so", ["FIX_ID=\"com.bad.minor\"", "FIX_ABI_MINOR=99"])
            return CorpusExpectation(path: file, stage: "version", keywords: ["newer", "field abi_minor", "plugin 99", "host \(ABIVersion.host.minor)"])
        case .entryStructTooSmall:
            let file = try fixture("m_entry_size.so", ["FIX_ID=\"com.bad.entrysize\"", "FIX_ENTRY_SIZE=8"])
            return CorpusExpectation(path: file, stage: "version", keywords: ["pb_entry_t", "struct_size is 8"])
        case .pluginStructTooSmall:
            let file = try fixture("m_plugin_size.so", ["FIX_ID=\"com.bad.pluginsize\"", "FIX_PLUGIN_SIZE=8"])
            return CorpusExpectation(path: file, stage: "register", keywords: ["pb_plugin_t", "struct_size is 8"],
                                     refusalKeywords: ["pb_plugin_t", "struct_size is 8"])
        case .vtableStructTooSmall:
            let file = try fixture("m_vtable_size.so", ["FIX_ID=\"com.bad.vtablesize\"", "FIX_LAUNCH=1", "FIX_VTABLE_SIZE=8"])
            return CorpusExpectation(path: file, stage: "register", keywords: ["com.bad.vtablesize", "pb_launch_t", "struct_size is 8"],
                                     refusalKeywords: ["pb_launch_t", "struct_size is 8"])
        case .nullID:
            let file = try fixture("m_null_id.so", ["FIX_NULL_ID"])
            return CorpusExpectation(path: file, stage: "register", keywords: ["id is NULL"], refusalKeywords: ["id is NULL"])
        case .emptyID:
            let file = try fixture("m_empty_id.so", ["FIX_ID=\"\""])
            return CorpusExpectation(path: file, stage: "register", keywords: ["invalid plugin id", "empty"],
                                     refusalKeywords: ["empty"])
        case .malformedID:
            let file = try fixture("m_malformed_id.so", ["FIX_ID=\"no dots\""])
            return CorpusExpectation(path: file, stage: "register", keywords: ["invalid plugin id 'no dots'"],
                                     refusalKeywords: ["'no dots'"])
        case .notReverseDNSID:
            let file = try fixture("m_nodots_id.so", ["FIX_ID=\"nodots\""])
            return CorpusExpectation(path: file, stage: "register", keywords: ["invalid plugin id 'nodots'", "reverse-DNS"],
                                     refusalKeywords: ["reverse-DNS"])
        case .sameIDTwiceInOneLibrary:
            let file = try fixture("m_twice.so", ["FIX_ID=\"com.bad.twice\"", "FIX_ADD_TWICE"])
            return CorpusExpectation(path: file, status: "loaded", stage: nil, keywords: [],
                                     registeredIDs: ["com.bad.twice"],
                                     refusalKeywords: ["duplicate plugin id 'com.bad.twice'", "added it twice"])
        case .noPlugins:
            let file = try fixture("m_no_plugins.so", ["FIX_ID=\"com.bad.none\"", "FIX_NO_PLUGINS"])
            return CorpusExpectation(path: file, stage: "register", keywords: ["registered no plugin"])
        case .initFails:
            let file = try fixture("m_init_fails.so", ["FIX_ID=\"com.bad.init\"", "FIX_INIT_FAILS"])
            return CorpusExpectation(path: file, stage: "init", keywords: ["init returned false", "the fixture's init was told to fail"],
                                     deinitDuringLoad: false)
        case .registerFails:
            let file = try fixture("m_register_fails.so", ["FIX_ID=\"com.bad.register\"", "FIX_REGISTER_FAILS"])
            return CorpusExpectation(path: file, stage: "register",
                                     keywords: ["register_plugins returned false", "the fixture's register was told to fail"],
                                     deinitDuringLoad: true)
        case .dataSymbolEntry:
            let file = try library("m_data_entry.so", #"__attribute__((visibility("default"))) const int plugboard_entry = 1;"#)
            return CorpusExpectation(path: file, stage: "entry",
                                     keywords: ["`plugboard_entry` is a data symbol (STT_OBJECT)", "not a function (STT_FUNC)"])
        case .missingEntry:
            let file = try library("m_missing_entry.so", #"__attribute__((visibility("default"))) int not_an_entry(void) { return 1; }"#)
            return CorpusExpectation(path: file, stage: "entry",
                                     keywords: ["no `plugboard_entry` symbol", "dynamic symbol table", "not a Plugboard plugin"])
        case .undefinedEntry:
            // The GNU hash table holds defined symbols only; the SysV one (DT_HASH) finds the undefined entry too.
            let file = try library("m_undefined_entry.so", """
                extern const void *plugboard_entry(void);
                __attribute__((visibility("default"))) const void *forward(void) { return plugboard_entry(); }
                """, flags: ["-Wl,--hash-style=sysv"])
            return CorpusExpectation(path: file, stage: "entry",
                                     keywords: ["`plugboard_entry` is undefined", "imported from another library"])
        case .threadLocalEntry:
            let file = try library("m_tls_entry.so", #"__attribute__((visibility("default"))) __thread int plugboard_entry = 1;"#)
            return CorpusExpectation(path: file, stage: "entry",
                                     keywords: ["thread-local data symbol (STT_TLS)", "not a function"])
        case .entryOutsideCode:
            // A function symbol whose bytes lie in a writable, not executable, data segment.
            let file = try library("m_entry_in_data.so", #"""
                __asm__(".section .data.entry,\"aw\",%progbits\n.globl plugboard_entry\n"
                        ".type plugboard_entry,%function\nplugboard_entry:\n.byte 0xc3\n.size plugboard_entry,1\n.previous\n");
                """#)
            return CorpusExpectation(path: file, stage: "entry",
                                     keywords: ["`plugboard_entry` is at address 0x", "outside the library's executable segments"])
        case .malformedSymbolTable:
            var all = try bytes(of: good)
            try ELFBytes.patchDynamicEntry(&all, tag: 6, to: 0xDEAD_0000)  // DT_SYMTAB
            let file = try write(all, "m_bad_dynsym.so")
            return CorpusExpectation(path: file, stage: "open",
                                     keywords: ["malformed ELF file", "the dynamic symbol table is at address 0xdead0000, outside every loaded segment"])
        case .crossCompiledForeignMachine:
            let file = try write(Array(try CrossCompiler.foreignLibrary.get()), "m_cross.so")
            return CorpusExpectation(path: file, stage: "open",
                                     keywords: ["built for \(Self.foreignELFMachine.name)", "machine \(Self.foreignELFMachine.number)"])
        case .systemLibraryWithoutEntry:
            guard let zlib = SystemLibrary.zlib else { throw TestFailure("no libz on this machine") }
            let file = try write(try bytes(of: zlib), "m_libz.so")
            return CorpusExpectation(path: file, stage: "entry", keywords: ["plugboard_entry", "not a Plugboard plugin"])
        }
    }
}

/// Surgery on a 64-bit little-endian ELF file's bytes, to make hostile variants of a good library.
enum ELFBytes {
    /// Little-endian integer of `size` bytes at `offset`.
    static func read(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        (0..<size).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    /// The file range of the `PT_DYNAMIC` segment.
    static func dynamicSection(_ bytes: [UInt8]) throws -> Range<Int> {
        let table = Int(read(bytes, 32, 8)), entrySize = Int(read(bytes, 54, 2)), count = Int(read(bytes, 56, 2))
        guard let header = (0..<count).map({ table + $0 * entrySize }).first(where: { read(bytes, $0, 4) == 2 }) else {
            throw TestFailure("no PT_DYNAMIC program header")
        }
        let offset = Int(read(bytes, header + 8, 8))
        return offset..<offset + Int(read(bytes, header + 32, 8))
    }

    /// Sets the value of the first dynamic entry with `tag` (`DT_*`).
    static func patchDynamicEntry(_ bytes: inout [UInt8], tag: UInt64, to value: UInt64) throws {
        guard let entry = stride(from: try dynamicSection(bytes).lowerBound, to: try dynamicSection(bytes).upperBound, by: 16)
            .first(where: { read(bytes, $0, 8) == tag }) else { throw TestFailure("no dynamic entry with tag \(tag)") }
        for index in 0..<8 { bytes[entry + 8 + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }
}

/// A plugin library that clang really built for another machine than this one.
enum CrossCompiler {
    #if arch(arm64)
    static let foreignTriple = "x86_64-linux-gnu"
    #else
    static let foreignTriple = "aarch64-linux-gnu"
    #endif

    /// `Fixtures/freestanding_plugin.c` built for ``foreignTriple``, or why it could not be.
    static let foreignLibrary: Result<Data, TestFailure> = {
        guard let scratch = try? TemporaryDirectory("plugboard-cross") else { return .failure(TestFailure("mkdtemp failed")) }
        defer { scratch.remove() }
        let output = scratch.file("cross.so")
        let arguments = ["clang", "--target=\(foreignTriple)", "-ffreestanding", "-nostdlib", "-fuse-ld=lld", "-shared", "-fPIC",
                         "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror", "-I", TestPaths.include,
                         TestPaths.fixtures + "/freestanding_plugin.c", "-o", output]
        guard let result = try? run("/usr/bin/env", arguments), result.status == 0,
              let data = try? Data(contentsOf: URL(fileURLWithPath: output))
        else { return .failure(TestFailure("clang cannot cross-compile a shared library for \(foreignTriple) here")) }
        return .success(data)
    }()

    static var unavailableReason: String? {
        if case .failure(let failure) = foreignLibrary { failure.description } else { nil }
    }
}

/// Real libraries of the system, found where they usually are.
enum SystemLibrary {
    /// A real libz (a shared library that is certainly not a plugin), or nil.
    static let zlib: String? = {
        for candidate in ["/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
                          "/lib/aarch64-linux-gnu/libz.so.1", "/usr/lib64/libz.so.1", "/lib64/libz.so.1"]
        where FileManager.default.isReadableFile(atPath: candidate) {
            return candidate
        }
        guard let ldconfig = ["/sbin/ldconfig", "/usr/sbin/ldconfig"].first(where: FileManager.default.isExecutableFile(atPath:)),
              let listing = try? run(ldconfig, ["-p"]), listing.status == 0
        else { return nil }
        for line in listing.output.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("libz.so.1 ") {
            if let arrow = line.range(of: "=> ") {
                let path = String(line[arrow.upperBound...]).trimmingCharacters(in: .whitespaces)
                if FileManager.default.isReadableFile(atPath: path) { return path }
            }
        }
        return nil
    }()
}

/// A plugin folder for one corpus case: the good plugins and the bad file, in a fresh temporary directory.
struct CorpusFolder {
    let root: TemporaryDirectory
    let plugins: String
    let expectation: CorpusExpectation

    init(_ bad: BadPlugin) throws {
        root = try TemporaryDirectory("plugboard-corpus-\(bad.rawValue)")
        plugins = root.file("plugins")
        do {
            try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
            try GoodPlugins.build(in: plugins)
            expectation = try bad.make(in: plugins)
        } catch {
            root.remove()
            throw error
        }
    }

    /// The report paths in scan order.
    var expectedPaths: [String] {
        [plugins + "/" + GoodPlugins.firstFile, expectation.path, plugins + "/" + GoodPlugins.lastFile]
    }
}

extension String {
    /// The text with every run of whitespace (including newlines) collapsed to one space.
    var collapsingWhitespace: String {
        split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// Parses JSON text into a dictionary, or nil.
func jsonObject(_ text: some StringProtocol) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

/// Collects what plugins log into a host, from any thread.
final class LogCollector: Sendable {
    struct Line: Sendable, Equatable {
        let source: String
        let plugin: String?
        let level: String
        let message: String
    }

    private let lines = Mutex<[Line]>([])

    func append(source: String, plugin: String?, level: String, message: String) {
        lines.withLock { $0.append(Line(source: source, plugin: plugin, level: level, message: message)) }
    }

    var all: [Line] { lines.withLock { $0 } }

    /// The messages logged for `plugin` (or for the library itself with nil), in order.
    func messages(plugin: String?) -> [String] {
        all.filter { $0.plugin == plugin }.map(\.message)
    }

    /// The messages a library logged for itself, from the library at `source`.
    func libraryMessages(source: String) -> [String] {
        all.filter { $0.plugin == nil && $0.source == source }.map(\.message)
    }

    func clear() { lines.withLock { $0.removeAll() } }
}
