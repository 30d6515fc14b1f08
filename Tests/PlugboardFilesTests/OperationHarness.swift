@testable import PlugboardFiles

/// One facade operation on a name, ready to run, labelled for messages.
struct NamedOperation {
    let label: String
    let run: () throws(FileFacadeError) -> Void
}

/// Every facade operation that takes a name and touches the file system,
/// aimed at `name`, so a confinement test cannot forget one (`path(for:)`
/// and `url(for:)` only spell a path and are tested on their own). `partner` is the other name of the
/// two-name operations, used as the source when `name` is the destination
/// (the caller makes sure it exists, in `partnerDirectory` and, for
/// "rename to", in `directory`).
func everyOperation(
    _ facade: FileFacade, on name: String, in directory: AppDirectory,
    partner: String, partnerDirectory: AppDirectory
) -> [NamedOperation] {
    [
        NamedOperation(label: "write") { () throws(FileFacadeError) in
            try facade.writeText("overwritten", to: name, in: directory)
        },
        NamedOperation(label: "write overwriting, creating folders") { () throws(FileFacadeError) in
            try facade.writeText("overwritten", to: name, in: directory, overwrite: true, createIntermediateDirectories: true)
        },
        NamedOperation(label: "read") { () throws(FileFacadeError) in _ = try facade.readBytes(name, in: directory) },
        NamedOperation(label: "exists") { () throws(FileFacadeError) in _ = try facade.exists(name, in: directory) },
        NamedOperation(label: "isReadable") { () throws(FileFacadeError) in _ = try facade.isReadable(name, in: directory) },
        NamedOperation(label: "isWritable") { () throws(FileFacadeError) in _ = try facade.isWritable(name, in: directory) },
        NamedOperation(label: "attributes") { () throws(FileFacadeError) in _ = try facade.attributes(of: name, in: directory) },
        NamedOperation(label: "list") { () throws(FileFacadeError) in _ = try facade.listContents(of: directory, folder: name) },
        NamedOperation(label: "copy from") { () throws(FileFacadeError) in
            try facade.copy(name, from: directory, to: partner, in: partnerDirectory, overwrite: true)
        },
        NamedOperation(label: "copy to") { () throws(FileFacadeError) in
            try facade.copy(partner, from: partnerDirectory, to: name, in: directory, overwrite: true, createIntermediateDirectories: true)
        },
        NamedOperation(label: "move from") { () throws(FileFacadeError) in
            try facade.move(name, from: directory, to: partner, in: partnerDirectory, overwrite: true)
        },
        NamedOperation(label: "move to") { () throws(FileFacadeError) in
            try facade.move(partner, from: partnerDirectory, to: name, in: directory, overwrite: true, createIntermediateDirectories: true)
        },
        NamedOperation(label: "rename from") { () throws(FileFacadeError) in
            try facade.rename(name, in: directory, to: "renamed", overwrite: true)
        },
        NamedOperation(label: "rename to") { () throws(FileFacadeError) in
            try facade.rename(partner, in: directory, to: name, overwrite: true)
        },
        NamedOperation(label: "change extension") { () throws(FileFacadeError) in
            _ = try facade.changeExtension(of: name, in: directory, to: "moved", overwrite: true)
        },
        NamedOperation(label: "delete") { () throws(FileFacadeError) in try facade.delete(name, in: directory) },
    ]
}
