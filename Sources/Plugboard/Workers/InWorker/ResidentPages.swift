import CWorkerSupport
import Dispatch

/// What a worker gives back of its resident memory once its library is loaded and it has been idle
/// for ``idleDelay``: the pages of code and constants mapped from its program and libraries that
/// starting and loading touched (the Swift runtime's set-up, the sandbox's, the dynamic loader's
/// search of every library's symbol tables). Each stays in the page cache, shared with the host and
/// the other workers, and is mapped again, with the pages around it, when next used: what stays
/// resident is what serving uses. A hundred workers each held about 10 MiB of such pages, about half
/// of them used once (BENCHMARKS.md: resident memory).
///
/// Given back when idle, not at once: unmapping the pages and mapping again the ones the next
/// requests use costs about half a millisecond of processor time, which at start-up would delay the
/// launch events of every worker.
///
/// A page the worker wrote is never released, or the write would be undone: nothing of a writable
/// segment, and no page of its own (a library's code relocated in place, a plugin's function hook),
/// told apart by the kernel's page map; only a write at the very moment of the release would be lost
/// (a plugin thread rewriting code then), which concerns that plugin's own worker alone.
enum ResidentPages {
    /// How long a worker with a library loaded waits with no request before giving back its pages.
    static let idleDelay = Duration.seconds(1)

    /// Gives back what the worker has not written of its mapped code and constants.
    static func release() {
        pbw_release_unwritten_pages()
    }
}
