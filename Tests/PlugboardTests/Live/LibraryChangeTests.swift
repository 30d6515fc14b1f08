import Testing
@testable import Plugboard

/// What a pass reports for a library it tried once more (``LibraryChange/followed(by:)``).
@Suite struct LibraryChangeTests {
    private static func change(_ kind: LibraryChange.Kind, from: String?, to: String?, plugins: [String] = [],
                               departed: [String] = [], warnings: [String] = []) -> LibraryChange {
        var change = LibraryChange(kind, path: "/p/liba.so")
        change.fromVersion = from
        change.toVersion = to
        change.plugins = plugins.map(PluginID.init(unchecked:))
        change.departed = departed.map(PluginID.init(unchecked:))
        change.warnings = warnings
        change.nanoseconds = 1_000_000
        return change
    }

    /// A retry that failed after the first try took the library: the first try stands (its version
    /// serves), and the retry's failure is a warning of it.
    @Test func aFailedRetryLeavesTheChangeThatTookTheLibrary() {
        let first = Self.change(.reloaded, from: "2.0", to: "3.0", plugins: ["com.example.b"])
        var retry = Self.change(.reloadFailed, from: "3.0", to: "3.0")
        retry.failure = "init failed"
        let reported = first.followed(by: retry)
        #expect(reported.kind == .reloaded && reported.fromVersion == "2.0" && reported.plugins == first.plugins)
        #expect(reported.warnings == ["tried again: reload of /p/liba.so failed: init failed; 3.0 kept"])
    }

    /// A retry that succeeded carries the first try on: from the version before the first, with the
    /// plugins the retry took and those of the old version that neither has.
    @Test func aRetryThatSucceededCarriesTheFirstTryOn() {
        let first = Self.change(.reloaded, from: "2.0", to: "3.0", plugins: ["com.example.b"], departed: ["com.example.a", "com.example.c"],
                                warnings: ["late veto"])
        let retry = Self.change(.reloaded, from: "3.0", to: "3.0", plugins: ["com.example.b", "com.example.c"])
        let reported = first.followed(by: retry)
        #expect(reported.kind == .reloaded && reported.fromVersion == "2.0" && reported.toVersion == "3.0")
        #expect(reported.plugins.map(\.rawValue) == ["com.example.b", "com.example.c"])
        #expect(reported.departed.map(\.rawValue) == ["com.example.a"])
        #expect(reported.warnings == ["late veto"] && reported.nanoseconds == 2_000_000)
        let joined = Self.change(.joined, from: nil, to: "3.0", plugins: ["com.example.b"]).followed(by: retry)
        #expect(joined.kind == .joined && joined.fromVersion == nil, "a library that joined, then took more ids, joined")
    }

    /// A first try that did not take the library: the retry is what happened.
    @Test func aRetryOfAFailedTryIsTheChange() {
        let first = Self.change(.joinFailed, from: nil, to: "1.0")
        let retry = Self.change(.joined, from: nil, to: "1.0", plugins: ["com.example.a"])
        #expect(first.followed(by: retry).kind == .joined)
    }
}
