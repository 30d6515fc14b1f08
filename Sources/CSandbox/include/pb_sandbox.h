/*
 * The kernel's confinement for a plugin worker: Landlock (files, TCP ports, signal
 * and abstract-socket scopes), seccomp-bpf through libseccomp (the kernel surface a
 * plugin has no use for, other socket families, exec), no_new_privs, capabilities
 * dropped, resource limits. Applied once, inside the worker, before the plugin
 * library is opened and while the worker has one thread (Landlock before its ABI 8
 * confines only the calling thread and the threads it starts later).
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

/** What the running kernel offers; filled by ::pbs_probe. */
typedef struct pbs_support {
    /** The Landlock ABI version (0: no Landlock: not built in, or disabled at boot). */
    int landlock_abi;
    /** Whether seccomp filters (with the trap action) can be installed. */
    int seccomp;
    /** Whether pidfd_open works: the process-group guard of a worker that may start processes
        watches the worker with it. */
    int pidfd;
    /** Whether a worker's threads and processes can be counted apart from every other process's, so
        that its thread limit (RLIMIT_NPROC) holds: a worker of a host running as root takes a real
        uid of its own (the kernel never limits real uid 0, whatever its capabilities; this holds
        only with seccomp, which refuses uid 0 again); any other makes a user namespace of its own
        (RLIMIT_NPROC counts a uid in each namespace apart). Tried in a child of the caller, with
        the limit checked. */
    int threads;
} pbs_support_t;

/** Probes the kernel once: Landlock's ABI, seccomp, pidfd_open and the thread count (in a child
    process). Never fails (missing layers read as 0). */
void pbs_probe(pbs_support_t *support);

/** Landlock ABI versions that bring what the sandbox uses. */
enum {
    /** Filesystem rules. */
    PBS_LANDLOCK_FILES = 1,
    /** TCP bind and connect rules. */
    PBS_LANDLOCK_TCP = 4,
    /** Scopes: signals and abstract Unix sockets stay inside the worker. */
    PBS_LANDLOCK_SCOPES = 6,
};

/** One worker's confinement: what it may reach beyond nothing. Lists may be empty (NULL, 0). */
typedef struct pbs_rules {
    /** Files and folders (with what is beneath) the worker may read, besides the files it runs on
        (mapped now: its executable and libraries; for the Swift runtime, its whole folder). */
    const char *const *read_paths;
    size_t read_count;
    /** The libraries the worker loads, which it may read when each is a regular file (checked on
        the descriptor the rule is made from). */
    const char *const *library_paths;
    size_t library_count;
    /** The libraries it needs, which the worker may read: each only when it is a regular ELF
        file, checked on the descriptor the rule is made from (a library names these itself: a
        folder, or a link to a secret, must not become readable). */
    const char *const *needed_paths;
    size_t needed_count;
    /** Files and folders the worker may read, write, create in and remove from. */
    const char *const *write_paths;
    size_t write_count;
    /** Programs the worker may execute (exec is refused when empty). */
    const char *const *execute_paths;
    size_t execute_count;
    /** TCP ports the worker may connect to. */
    const uint16_t *connect_ports;
    size_t connect_count;
    /** TCP ports the worker may bind. */
    const uint16_t *bind_ports;
    size_t bind_count;
    /** Non-zero: every socket family and port (the network is not confined). */
    int network_all;
    /** The Landlock ABI to use (0: no Landlock layer). */
    int landlock_abi;
    /** Non-zero: install the seccomp filter. */
    int seccomp;
    /** The filter compiled beforehand by ::pbs_filter_compile for the same rules (a host compiles it
        once for all its workers), or NULL: ::pbs_apply builds it. */
    const void *filter;
    /** The compiled filter's size in bytes. */
    size_t filter_size;
    /** Where a denied system call is reported (a ::pbs_denial_t record each), or -1. */
    int report_fd;
    /** The highest descriptor the worker was handed to keep (its sockets), or -1 for 3 alone. */
    int last_kept_fd;
    /** RLIMIT_NOFILE (0: leave it). */
    uint64_t open_files;
    /** RLIMIT_DATA in bytes (0: leave it). */
    uint64_t memory_bytes;
    /** RLIMIT_CPU in seconds (0: leave it). */
    uint64_t cpu_seconds;
    /** The most threads the worker may run at once, its processes' included (RLIMIT_NPROC, counted
        for the worker alone: see ::pbs_support_t's `threads`); 0: no limit. */
    uint64_t threads;
    /** Non-zero: a worker that cannot be held to `threads` fails (`--sandbox strict`); else it serves
        without the limit and says so on standard error, when counting it apart changed nothing. */
    int threads_required;
} pbs_rules_t;

/**
 * Confines the calling process for good: closes every descriptor above `report_fd`,
 * `last_kept_fd` and 3 (the worker's channel), sets the limits (core dumps off; for a thread
 * limit, the process is first counted apart: see ::pbs_support_t's `threads`), no_new_privs, drops
 * every capability, starts the process-group guard when processes may start (programs to run,
 * or no seccomp; it kills the calling process's group once the process ends; the process must lead
 * its group; none where pidfd_open is missing), then Landlock and
 * seccomp as `rules` say. Returns 0, or -1 with
 * a sentence in `error` naming the step and the cause; the caller must then exit,
 * since the process may be partly confined. Refuses (-1) when the process has more
 * than one thread.
 */
int pbs_apply(const pbs_rules_t *rules, char *error, size_t error_size);

/**
 * Builds the seccomp filter `rules` ask for (its system-call rules depend only on the execute
 * and network grants) and writes it, as a BPF program, into `buffer`. Returns its size in bytes,
 * or -1 with a sentence in `error`.
 */
long pbs_filter_compile(const pbs_rules_t *rules, void *buffer, size_t capacity, char *error, size_t error_size);

/** What the worker reports, on `report_fd`, about one system call the filter refused (EPERM). */
typedef struct pbs_denial {
    /** The system call's number. */
    int32_t call;
    /** Its first three arguments. */
    uint64_t arguments[3];
    /** The plugin (or library stage) whose code made it, if known: NUL-terminated, maybe cut. */
    char who[96];
    /** The callback it was in ("open_url", "init"), if known. */
    char callback[32];
} pbs_denial_t;

/** `clone`'s flags that ::pbs_denial_t readers look at (the values of <sched.h>, checked in sandbox.c):
    a clone without CLONE_THREAD starts a process; one with a namespace flag makes a namespace. */
enum {
    PBS_CLONE_THREAD = 0x00010000,
    PBS_CLONE_NAMESPACES = 0x7E020000,
};

/** `prctl`'s options the filter refuses, as ::pbs_denial_t readers see them (the values of
    <sys/prctl.h>, checked in sandbox.c): changing the death signal, becoming dumpable. */
enum {
    PBS_PR_SET_PDEATHSIG = 1,
    PBS_PR_SET_DUMPABLE = 4,
};

/** The name of system call `call` on this machine ("socket", "execve"), or NULL. */
const char *pbs_call_name(int32_t call);
