import PlugboardFiles
import PlugboardWorkerProtocol

/// The host's side of a worker's files service: each `files` request runs on the host's
/// ``FilesService`` under the library's gate, exactly as the library's call would run in
/// process, and its outcome goes back as a `serviceReply`.
struct WorkerFilesServer: Sendable {
    private let service: FilesService
    private let gate: ServiceGate

    /// A server on `facade`'s container, refusing what `gate` denies the worker's library.
    init(facade: FileFacade, gate: ServiceGate) {
        service = FilesService(facade: facade)
        self.gate = gate
    }

    /// The most bytes a result (a `read`'s bytes, a listing) gives a worker: what one reply frame
    /// carries (its payload less the reply's other fields). A larger one is refused, not made and
    /// then left unsent, which would end the worker.
    static let resultLimit = WireFormat.maximumPayloadLength - 64

    /// Runs one request and says how it went.
    func serve(_ operation: FilesOperation, path: String, secondPath: String, data: [UInt8], flags: UInt32) -> WorkerMessage {
        let outcome = service.perform(FilesRequest(operation: operation, path: path, secondPath: secondPath, data: data,
                                                   flags: flags, resultLimit: Self.resultLimit), gate: gate)
        return .serviceReply(status: outcome.status, payload: outcome.payload, message: outcome.message)
    }
}
