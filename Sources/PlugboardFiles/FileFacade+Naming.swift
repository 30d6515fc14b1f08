#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turning a (directory, name) pair into a full path, for callers that must
/// hand a path to code outside the facade.
///
/// The result is only a spelling: code that opens it by path follows
/// symbolic links and does not get the facade's confinement.
extension FileFacade {
    /// The absolute file URL of `name` in `directory`; `name` is validated
    /// like every other name, so the URL stays inside the container.
    public func url(for name: String, in directory: AppDirectory) throws(FileFacadeError) -> URL {
        URL(fileURLWithPath: try path(for: name, in: directory))
    }

    /// The absolute path of `name` in `directory`; `name` is validated like
    /// every other name, so the path stays inside the container.
    public func path(for name: String, in directory: AppDirectory) throws(FileFacadeError) -> String {
        let context = ErrorContext(operation: .resolveName, directory: directory, name: name)
        _ = try SandboxedName(validating: name, context)
        return container.absolutePath(of: directory.relativePath + "/" + name)
    }
}
