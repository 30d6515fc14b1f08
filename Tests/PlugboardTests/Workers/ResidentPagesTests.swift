import CWorkerSupport
import Glibc
import Testing

/// ``ResidentPages``: what a worker gives back of the code and constants it has mapped, tried in this
/// process on a real library: untouched pages go, a page of code the process rewrote (a function
/// hook) stays as written.
@Suite struct ResidentPagesTests {
    private static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Whether the page at `address` is mapped in this process (/proc/self/pagemap's present bit).
    private func isResident(_ address: UnsafeRawPointer) throws -> Bool {
        let map = open("/proc/self/pagemap", O_RDONLY)
        try #require(map >= 0)
        defer { close(map) }
        var entry: UInt64 = 0
        let offset = off_t(UInt(bitPattern: address) / UInt(Self.page) * 8)
        try #require(pread(map, &entry, 8, offset) == 8)
        return entry & (1 << 63) != 0
    }

    /// Whether this machine runs the hook's machine code (x86-64).
    private static let runsTheHook: Bool = {
        #if arch(x86_64)
        true
        #else
        false
        #endif
    }()

    @Test(.enabled(if: runsTheHook, "the hook is x86-64 machine code"))
    func untouchedPagesGoAndAPageTheProcessWroteStays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.fixtures + "/resident_pages.c", to: directory.file("libresident.so"))
        let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL))
        defer { dlclose(handle) }
        let function = try #require(dlsym(handle, "resident_answer"))
        let constants = try #require(dlsym(handle, "resident_constants")).assumingMemoryBound(to: UInt8.self)
        typealias Answer = @convention(c) () -> Int32
        let answer = unsafeBitCast(function, to: Answer.self)
        #expect(answer() == 7)

        // The hook: `mov eax, 42; ret` written over the function, as a hooking library patches code.
        let code = UnsafeMutableRawPointer(mutating: function)
        try #require(mprotect(code, Self.page, PROT_READ | PROT_WRITE | PROT_EXEC) == 0)
        let hook: [UInt8] = [0xB8, 0x2A, 0x00, 0x00, 0x00, 0xC3]
        hook.withUnsafeBytes { code.copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: hook.count) }
        try #require(mprotect(code, Self.page, PROT_READ | PROT_EXEC) == 0)
        #expect(answer() == 42)
        #expect(constants[2 * Self.page] == 3)
        #expect(try isResident(constants + 2 * Self.page))

        pbw_release_unwritten_pages()

        #expect(try !isResident(constants + 2 * Self.page), "an untouched page of constants is given back")
        #expect(try isResident(function), "the rewritten page stays")
        #expect(answer() == 42, "the rewrite is not undone")
        #expect(constants[2 * Self.page] == 3, "a page given back reads the same when used again")
    }
}
