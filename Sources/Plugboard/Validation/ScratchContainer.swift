import Foundation
import Glibc
import PlugboardFiles

/// A container in a new temporary directory for one check, so plugins get the files
/// service as under `plugboard run`; the directory is removed with this object.
final class ScratchContainer: Sendable {
    /// The facade over the container, with its four directories made.
    let facade: FileFacade
    private let root: String

    /// A new scratch container; nil when no temporary directory can be made (the check's
    /// plugins then get no files service).
    init?() {
        var template = Array((NSTemporaryDirectory() + "/plugboard-validate-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let root = String(cString: made)
        guard let container = try? Container(rootPath: root), (try? container.createDirectories()) != nil else {
            try? FileManager.default.removeItem(atPath: root)
            return nil
        }
        self.root = root
        facade = FileFacade(container: container)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }
}
