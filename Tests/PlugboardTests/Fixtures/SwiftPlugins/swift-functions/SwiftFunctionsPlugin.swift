// A Swift plugin offering functions of every type PluginFunction maps, and functions that throw
// or return what cannot cross, for the fail values (SwiftFunctionTests). A `.dynamic` product of
// the fixture package (../Package.swift).
import PlugboardSDK
import Synchronization

@c(plugboard_entry)
public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
    PluginLibrary.entry { _ in [try FunctionsFixture()] }
}

/// A thrown error whose description is the log line's reason.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// The plugin's state, shared by its functions (called from any thread).
final class Calls: Sendable {
    let count = Atomic<Int32>(0)
}

struct FunctionsFixture: FunctionsPlugin {
    let descriptor: PluginDescriptor
    let calls = Calls()

    init() throws {
        descriptor = PluginDescriptor(id: try PluginID(validating: "com.example.swiftfunctions"), name: "Swift functions",
                                      version: "1.0.0", priority: 0)
    }

    var functions: [PluginFunction] {
        let calls = calls
        return [
            PluginFunction("scale", doc: "value times factor") { (value: Double, factor: Int32) -> Double in
                calls.count.add(1, ordering: .relaxed)
                return value * Double(factor)
            },
            PluginFunction("count") { () -> Int32 in calls.count.load(ordering: .relaxed) },
            PluginFunction("reset") { calls.count.store(0, ordering: .relaxed) },
            PluginFunction("negate8") { (value: Int8) -> Int8 in 0 &- value },
            PluginFunction("add64") { (a: UInt64, b: UInt64) -> UInt64 in a &+ b },
            PluginFunction("is_empty") { (text: String) -> Bool in text.isEmpty },
            PluginFunction("half") { (value: Float) -> Float in value / 2 },
            PluginFunction("greet", doc: "a greeting, malloc'd per call") { (name: String) -> String in "hello, \(name)" },
            PluginFunction("reversed") { (data: [UInt8], add: UInt8) -> [UInt8] in data.reversed().map { $0 &+ add } },
            PluginFunction("same") { (pointer: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? in pointer },
            PluginFunction("fail_double") { (why: String) throws -> Double in throw Failure(description: why) },
            PluginFunction("fail_string") { () -> String in "nul\0inside" },
            PluginFunction("fail_int") { () throws -> Int64 in throw Failure(description: "no int") },
            PluginFunction("fail_bytes") { () throws -> [UInt8] in throw Failure(description: "no bytes") },
            PluginFunction("fail_void") { () throws in throw Failure(description: "no void") },
        ]
    }
}
