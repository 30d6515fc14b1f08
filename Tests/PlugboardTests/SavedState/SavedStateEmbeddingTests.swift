import Foundation
import Plugboard
import PlugboardFiles
import Testing

/// The embedding API: a Swift plugin registered in code takes part in saved state through
/// ``SavedStatePlugin``, with ``PluginHost/restoreState(from:)`` and ``PluginHost/saveState(to:)``.
@Suite struct SavedStateEmbeddingTests {
    /// Remembers the notes it was given; nil from `saveState` when told to save nothing.
    final class Notes: SavedStatePlugin {
        let descriptor: PluginDescriptor
        var notes: [UInt8] = []
        var restoredFrom: String?
        var saveNothing = false

        init(version: String) throws {
            descriptor = PluginDescriptor(id: try PluginID(validating: "com.example.notes"), version: version)
        }

        func saveState() -> [UInt8]? { saveNothing ? nil : notes }

        func restoreState(_ state: [UInt8], savedVersion: String) -> Bool {
            notes = state
            restoredFrom = savedVersion
            return true
        }
    }

    @Test func aSwiftPluginInCodeSavesAndRestores() throws {
        let directory = try TemporaryDirectory("plugboard-state-embedding")
        defer { directory.remove() }
        let store = SavedStateStore(facade: FileFacade(container: try Container(rootPath: directory.file("container"))))

        let first = PluginHost()
        let plugin = try Notes(version: "1.0")
        try first.register(plugin)
        #expect(first.plugins.first?.concerns == [.savedState])
        #expect(first.restoreState(from: store).entries.isEmpty)
        plugin.notes = Array("buy milk".utf8)
        let saved = first.saveState(to: store)
        #expect(saved.entries.map(\.outcome) == [.saved] && saved.entries.first?.bytes == 8)

        let second = PluginHost()
        let again = try Notes(version: "2.0")
        try second.register(again)
        #expect(second.restoreState(from: store).entries.map(\.outcome) == [.restored])
        #expect(again.notes == Array("buy milk".utf8) && again.restoredFrom == "1.0")
        again.saveNothing = true
        let kept = second.saveState(to: store)
        #expect(kept.entries.map(\.outcome) == [.kept] && kept.entries.first?.warning?.contains("saveState returned nil") == true)
        guard case .found(let file) = store.load(again.descriptor.id) else {
            Issue.record("the previous state is gone")
            return
        }
        #expect(file.pluginVersion == "1.0" && file.state == Array("buy milk".utf8))
    }
}
