import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlugboardWorkerProtocol
import Synchronization

/// Scans libraries in scanner workers, as GStreamer's plugin scanner does: a worker loads
/// many libraries one after another, each alone (the one before is let go of first, its
/// `deinit` run), so a listing pays a worker's start-up once per share of libraries, not
/// once per library; up to one worker per processor scans at a time.
///
/// A library that crashes, exits or hangs its worker is reported as crashed at the stage it
/// was in, and a fresh worker goes on with the next file of the share. A worker that ends
/// while loading a library that was not its first may have been ended by one before it (a
/// thread it left running): that library is scanned again, first in a fresh worker, and
/// only a crash there is its own. The libraries of a share run in one process, so one can also
/// forge the report of a later one (from a thread it left running): what a listing shows of a
/// library is what its scanner process said. A load trusts such a report only to skip the ELF
/// checks of a library it loads in process, where the library that could forge it runs too.
/// Each worker is
/// confined as a library's own would be, except that it may read every library of its share
/// (and what they need): the libraries of one share are taken in listing order, and share
/// one policy grant. A grant that limits CPU time or memory puts one library in each worker
/// (the limits are a process's).
struct WorkerScanner: Sendable {
    /// The `plugboard-worker` executable.
    let worker: String
    /// How long a library's load may take before its worker is ended.
    let callTimeout: Duration?
    /// How workers are confined.
    let sandbox: SandboxMode
    /// The policy whose sandbox grants apply, if any.
    let policy: AccessPolicy?
    /// Where plugin code's printed lines go, attributed to the library being loaded.
    let output: PluginHost.OutputHandler

    /// The most libraries one worker loads: a bound on what stays mapped in it (a library is
    /// not unmapped, see `RTLD_NODELETE`) and on the size of its sandbox.
    static let shareSize = 32

    /// One entry per path of `paths`, in order.
    func scan(_ paths: [String]) -> [ScanCacheEntry] {
        let shares = Self.shares(of: paths, grant: { policy?.grant(forLibrary: $0) ?? SandboxGrant() })
        let entries = Mutex([ScanCacheEntry?](repeating: nil, count: paths.count))
        let next = Atomic(0)
        let lanes = min(ProcessInfo.processInfo.activeProcessorCount, shares.count)
        DispatchQueue.concurrentPerform(iterations: lanes) { _ in
            while true {
                let taken = next.add(1, ordering: .relaxed).oldValue
                guard taken < shares.count else { return }
                let share = shares[taken]
                for (index, entry) in scan(share.indices.map { (index: $0, path: paths[$0]) }, grant: share.grant) {
                    entries.withLock { $0[index] = entry }
                }
            }
        }
        return entries.withLock { $0 }.enumerated().map { index, entry in
            entry ?? .scanned(report: .failed(paths[index], LoadFailure(.worker, "no scanner worker reached the library")))
        }
    }

    /// `paths` (by index) cut into shares: runs of consecutive paths with one grant, at most
    /// ``shareSize`` long, or 1 when the grant limits CPU time, memory or threads.
    static func shares(of paths: [String], grant: (String) -> SandboxGrant) -> [(indices: [Int], grant: SandboxGrant)] {
        var shares: [(indices: [Int], grant: SandboxGrant)] = []
        for (index, path) in paths.enumerated() {
            let granted = grant(path)
            let limit = granted.cpuSeconds == nil && granted.memoryBytes == nil && granted.threads == nil ? shareSize : 1
            if let last = shares.last, last.grant == granted, last.indices.count < limit {
                shares[shares.count - 1].indices.append(index)
            } else {
                shares.append(([index], granted))
            }
        }
        return shares
    }

    /// Scans `share` (indices and paths), starting a fresh worker after each one that ended.
    private func scan(_ share: [(index: Int, path: String)], grant: SandboxGrant) -> [(Int, ScanCacheEntry)] {
        var entries: [(Int, ScanCacheEntry)] = []
        var remaining = share[...]
        // A library whose worker ended while it loaded after others: scanned again, first in the next worker.
        var again: Int?
        let grace = callTimeout ?? .seconds(10)
        let current = Mutex(share.first?.path ?? "")
        let output = output
        while let first = remaining.first {
            let connection: WorkerConnection
            do {
                let plan = try WorkerSandbox.plan(for: remaining.map(\.path), mode: sandbox, support: .kernel, grant: grant)
                connection = try WorkerConnection(library: first.path, trust: .allowInsecure, sandbox: plan, worker: worker,
                                                  facade: nil, invoker: nil, bus: nil, log: { _ in }, refusals: nil,
                                                  output: { line in
                                                      output(PluginOutputLine(source: current.withLock { $0 }, stream: line.stream,
                                                                              text: line.text))
                                                  })
            } catch {
                return entries + remaining.map { ($0.index, .scanned(report: .failed($0.path, error))) }
            }
            if let failure = connection.handshake(worker: worker, timeout: grace) {
                return entries + remaining.map { ($0.index, .scanned(report: .failed($0.path, failure))) }
            }
            var loadedHere = 0
            while let (index, path) = remaining.first {
                current.withLock { $0 = path }
                let answer = connection.load(path, timeout: callTimeout)
                if case .lost = answer, loadedHere > 0, again != index {
                    again = index
                    break
                }
                remaining.removeFirst()
                loadedHere += 1
                switch answer {
                case .report(var report):
                    report.warnings = []
                    report.sandbox = connection.sandboxSummary
                    entries.append((index, .scanned(report: report)))
                case .broken(let failure):
                    entries.append((index, .scanned(report: .failed(path, failure))))
                case .lost(let ending):
                    entries.append((index, .crashed(reason: LoadFailure(lostLoading: path, ending, at: connection.stage))))
                }
                guard connection.ending == nil, !remaining.isEmpty else { break }
                // Each library is scanned alone: the one before is let go of first. A worker that ends
                // in `deinit` leaves that library's report as it was; the next starts a fresh worker.
                guard case .success(.unloaded) = connection.request(.unload(lingerMilliseconds: 0), timeout: grace) else {
                    connection.close(timeout: .zero)
                    break
                }
            }
            if connection.ending == nil { connection.close(timeout: grace) }
        }
        return entries
    }
}
