import Glibc
import PlugboardSystem
import SystemPackage

extension ChildProcess {
    /// How the child ended, reaping it if it just did; nil while it runs. Never blocks.
    /// A child that leads its own process group takes the group with it: what is left
    /// of it is killed before the child is reaped (while its pid still names the group).
    public func reapIfEnded() throws(ChildProcessError) -> Termination? {
        try termination.withLock { termination throws(ChildProcessError) in
            if let termination { return termination }
            if leadsProcessGroup {
                var info = siginfo_t()
                if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == pid {
                    kill(-pid, SIGKILL)
                }
            }
            var status: Int32 = 0
            let reaped: pid_t
            do throws(Errno) {
                reaped = try systemCall { waitpid(pid, &status, WNOHANG) }
            } catch {
                throw ChildProcessError(operation: "wait for", executable: executable, cause: error)
            }
            guard reaped == pid else { return nil }
            termination = Termination(waitStatus: status)
            return termination
        }
    }

    /// Waits for the child to end and reaps it; at once when it was reaped already.
    ///
    /// It blocks in `waitid(WNOWAIT)`, which leaves the child a zombie, outside the lock,
    /// so that `signal` is never held up and never reaches a pid that was reused.
    public func wait() throws(ChildProcessError) -> Termination {
        while true {
            if let termination = try reapIfEnded() { return termination }
            var info = siginfo_t()
            do {
                try systemCall { waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) }
            } catch where error == .noChildProcess {
                // Another thread reaped it meanwhile: `reapIfEnded` has the answer.
                continue
            } catch {
                throw ChildProcessError(operation: "wait for", executable: executable, cause: error)
            }
        }
    }

    /// Sends `signal` to the child, unless it was reaped (its pid may be another process's by now).
    public func signal(_ signal: Int32) throws(ChildProcessError) {
        try termination.withLock { termination throws(ChildProcessError) in
            guard termination == nil else { return }
            do throws(Errno) {
                try systemCall { kill(pid, signal) }
            } catch {
                throw ChildProcessError(operation: "signal", executable: executable, cause: error)
            }
        }
    }

    /// Kills the child with SIGKILL unless it ended (and its process group, when it
    /// leads one), and reaps it: the cleanup that leaves no process behind, also on a
    /// failure path.
    public func stop() {
        try? signal(SIGKILL)
        _ = try? wait()
    }
}
