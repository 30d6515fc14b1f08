import Testing
@testable import Plugboard

/// How a log call's plugin id becomes its record's.
@Suite struct LogRecordTests {
    /// An id no plugin can have (longer than 255 bytes) is cut to its first 64 bytes: a hostile
    /// megabyte-long id is not printed whole before each line.
    @Test func anIdLongerThanAnyPluginsIsShortened() {
        #expect(PluginLogRecord.shortened(id: "com.example.x") == "com.example.x")
        let longest = String(repeating: "a", count: 251) + ".b.c"
        #expect(PluginLogRecord.shortened(id: longest) == longest)
        let huge = "com." + String(repeating: "x", count: 1 << 20)
        #expect(PluginLogRecord.shortened(id: huge) == "com." + String(repeating: "x", count: 60) + "…")
    }
}
