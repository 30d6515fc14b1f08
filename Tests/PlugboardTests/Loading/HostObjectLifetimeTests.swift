import CPlugboard
import Foundation
import Synchronization
import Testing
import PlugboardFiles
@testable import Plugboard

/// The host services table, its files table and a completion handle, called
/// through their C function pointers before and after the library's end: the
/// memory stays valid, every call after the end is ignored, and the first one
/// is reported once, naming the library.
@Suite struct HostObjectLifetimeTests {
    /// A services table for a made-up library whose messages land in `logs`, with a files service on `container`.
    private struct Setup {
        let logs = LogCollector()
        let router = LogRouter()
        let lifetime: LibraryLifetime
        let services: HostServicesTable
        let owner = ObjectIdentifier(LogCollector.self)

        init(container: TemporaryDirectory) throws {
            let logs = logs
            try FileManager.default.createDirectory(atPath: container.file("Documents"), withIntermediateDirectories: false)
            router.attach(owner) { logs.append(source: $0.source, plugin: $0.plugin, level: $0.level.rawValue, message: $0.message) }
            lifetime = LibraryLifetime(libraryPath: "/plugins/libx.so", router: router)
            services = HostServicesTable(lifetime: lifetime, router: router,
                                         files: FilesAccess(.here(FilesService(facade: FileFacade(container: try Container(rootPath: container.path))))),
                                         gate: ServiceGate { _ in })
        }

        func log(_ message: String) throws {
            let log = try #require(services.table.pointee.log)
            log(services.table, nil, PB_LOG_INFO, message)
        }

        func write(_ path: String) throws -> pb_status_t {
            let files = try #require(services.table.pointee.files)
            let write = try #require(files.pointee.write)
            return write(services.table, path, "x", 1, PB_FILES_CREATE_FOLDERS)
        }
    }

    @Test func everyServiceCallAfterDeinitIsIgnoredAndTheFirstReportedOnce() throws {
        let container = try TemporaryDirectory("plugboard-lifetime")
        defer { container.remove() }
        let setup = try Setup(container: container)
        let answers = Mutex<[FetchResult]>([])
        let handle = FetchCompletionPool(lifetime: setup.lifetime).handle(for: FetchCompletion { result in
            answers.withLock { $0.append(result) }
        })
        let complete = try #require(handle.pointee.complete)

        try setup.log("before")
        #expect(try setup.write("Documents/before.txt") == PB_OK)
        complete(handle, PB_FETCH_NEW_DATA)

        setup.lifetime.end(.deinitialized)
        try setup.log("after")
        #expect(try setup.write("Documents/after.txt") == PB_ERR_WRONG_STATE)
        complete(handle, PB_FETCH_FAILED)
        try setup.log("after again")

        #expect(setup.logs.all.map(\.message) == ["before", "/plugins/libx.so called log after its deinit; ignored (reported once)"])
        #expect(setup.logs.all.last?.level == "warning" && setup.logs.all.last?.source == "plugboard")
        #expect(answers.withLock { $0 } == [.newData])
        #expect(FileManager.default.fileExists(atPath: container.file("Documents/before.txt")))
        #expect(!FileManager.default.fileExists(atPath: container.file("Documents/after.txt")))
    }

    @Test func aLibraryWhoseInitFailedIsToldSo() throws {
        let container = try TemporaryDirectory("plugboard-lifetime")
        defer { container.remove() }
        let setup = try Setup(container: container)
        setup.lifetime.end(.initFailed)
        #expect(try setup.write("Documents/late.txt") == PB_ERR_WRONG_STATE)
        try setup.log("late")
        #expect(setup.logs.all.map(\.message)
                    == ["/plugins/libx.so called a files function after its init returned false; ignored (reported once)"])
    }

    @Test func aHostThatLetGoHearsNothingMore() throws {
        let container = try TemporaryDirectory("plugboard-lifetime")
        defer { container.remove() }
        let setup = try Setup(container: container)
        setup.router.detach(setup.owner)
        setup.lifetime.end(.deinitialized)
        // Nobody listens: the warning goes to standard error (the end-to-end tests read it), not to the old sink.
        try setup.log("orphan")
        #expect(setup.logs.all.isEmpty)
    }
}
