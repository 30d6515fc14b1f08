/*
 * The sandbox escape corpus: a hostile plugin (id "test.escape") that tries,
 * from every place plugin code runs, what a worker's sandbox must deny, and
 * reports each try in one line:
 *
 *     escape <place> <attempt> allowed [detail]
 *     escape <place> <attempt> blocked <errno name, signal name, number or word>
 *
 * Places: constructor (the library constructor: no host yet, so the line is
 * printed to standard output), init (the entry's init), callback
 * (did_finish_launching) and thread (a thread the callback starts and joins).
 * The other places log through the host's log service.
 *
 * Every attempt is harmless when it succeeds (what it opens it closes, what it
 * creates it removes, signal 0 only, the namespace changes happen in a child
 * that exits) and returns promptly when denied (non-blocking sockets, short
 * timeouts, children killed past a timeout). Attempts that would change the
 * plugin's own process run in a forked child, which reports back through a
 * close-on-exec pipe.
 *
 * Compile-time definitions (all required):
 *   SECRET_PATH    "path" of a file nothing grants        (read-secret)
 *   WRITE_DIR      "path" of a folder, the stand-in for $HOME (write-home)
 *   TCP_PORT       a port on 127.0.0.1 with a TCP listener (tcp-connect, udp-send)
 *   ABSTRACT_NAME  "name" of an abstract Unix listener     (unix-abstract)
 *   UNIX_PATH      "path" of a Unix socket listener        (unix-path)
 */
#define _GNU_SOURCE
#include <plugboard.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if !defined(SECRET_PATH) || !defined(WRITE_DIR) || !defined(TCP_PORT) || !defined(ABSTRACT_NAME) || !defined(UNIX_PATH)
#error "define SECRET_PATH, WRITE_DIR, TCP_PORT, ABSTRACT_NAME and UNIX_PATH (see the comment at the top)"
#endif

#define PLUGIN_ID "test.escape"
/* How long a connect may wait for its answer, and a child for its end. */
#define CONNECT_TIMEOUT_MS 1000
#define CHILD_TIMEOUT_MS 3000

/* Constants some system headers lack. */
#ifndef KEY_SPEC_PROCESS_KEYRING
#define KEY_SPEC_PROCESS_KEYRING (-2)
#endif
#ifndef KEYCTL_UNLINK
#define KEYCTL_UNLINK 9
#endif
#ifndef PR_GET_NO_NEW_PRIVS
#define PR_GET_NO_NEW_PRIVS 39
#endif
#if !defined(SYS_io_uring_setup) && defined(__NR_io_uring_setup)
#define SYS_io_uring_setup __NR_io_uring_setup
#endif

/* ---- Outcomes ------------------------------------------------------------------------------ */

/* What an attempt found: allowed or blocked, and a word or number to say more. */
typedef struct {
    bool allowed;
    char detail[40];
} outcome_t;

static outcome_t allowed(const char *detail) {
    outcome_t outcome = {true, ""};
    snprintf(outcome.detail, sizeof outcome.detail, "%s", detail);
    return outcome;
}

static outcome_t blocked(const char *why) {
    outcome_t outcome = {false, ""};
    snprintf(outcome.detail, sizeof outcome.detail, "%s", why);
    return outcome;
}

/* The symbolic name of `error`, or its number. */
static outcome_t denied(int error) {
#define NAME(e) {e, #e}
    static const struct { int number; const char *name; } names[] = {
        NAME(EPERM), NAME(ENOENT), NAME(ESRCH), NAME(EINTR), NAME(EIO), NAME(ENXIO), NAME(E2BIG),
        NAME(ENOEXEC), NAME(EBADF), NAME(ECHILD), NAME(EAGAIN), NAME(ENOMEM), NAME(EACCES),
        NAME(EFAULT), NAME(EBUSY), NAME(EEXIST), NAME(EXDEV), NAME(ENODEV), NAME(ENOTDIR),
        NAME(EISDIR), NAME(EINVAL), NAME(ENFILE), NAME(EMFILE), NAME(ETXTBSY), NAME(EFBIG),
        NAME(ENOSPC), NAME(EROFS), NAME(EMLINK), NAME(EPIPE), NAME(ENAMETOOLONG), NAME(ENOSYS),
        NAME(ELOOP), NAME(EUSERS), NAME(ENOTSOCK), NAME(EPROTOTYPE), NAME(ENOPROTOOPT),
        NAME(EPROTONOSUPPORT), NAME(ESOCKTNOSUPPORT), NAME(EOPNOTSUPP), NAME(EAFNOSUPPORT),
        NAME(EADDRINUSE), NAME(EADDRNOTAVAIL), NAME(ENETDOWN), NAME(ENETUNREACH),
        NAME(ECONNABORTED), NAME(ECONNRESET), NAME(ENOBUFS), NAME(ETIMEDOUT), NAME(ECONNREFUSED),
        NAME(EHOSTUNREACH), NAME(EALREADY), NAME(EINPROGRESS), NAME(EDQUOT), NAME(ENOKEY),
        NAME(EKEYREJECTED), NAME(EKEYREVOKED), NAME(EKEYEXPIRED),
    };
#undef NAME
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].number == error) return blocked(names[i].name);
    }
    char number[16];
    snprintf(number, sizeof number, "%d", error);
    return blocked(number);
}

/* Blocked by a signal that ended a child: its name, or "signal-N". */
static outcome_t killed_by(int signal_number) {
    switch (signal_number) {
    case SIGSYS: return blocked("SIGSYS");
    case SIGKILL: return blocked("SIGKILL");
    case SIGSEGV: return blocked("SIGSEGV");
    case SIGABRT: return blocked("SIGABRT");
    case SIGBUS: return blocked("SIGBUS");
    default: {
        char name[24];
        snprintf(name, sizeof name, "signal-%d", signal_number);
        return blocked(name);
    }
    }
}

/* Allowed when `result` (of a call returning -1 and errno on failure) is not -1. */
static outcome_t by_result(long result) { return result == -1 ? denied(errno) : allowed(""); }

/* Allowed when `fd` is a descriptor (then closed), else blocked with errno. */
static outcome_t by_descriptor(long fd) {
    if (fd < 0) return denied(errno);
    close((int)fd);
    return allowed("");
}

/* ---- Helpers -------------------------------------------------------------------------------- */

/* The host's process id: the worker's parent. 0 when there is none to see (a new pid
 * namespace, or the host gone and the worker adopted by init). */
static pid_t host_pid(void) {
    pid_t parent = getppid();
    return parent > 1 ? parent : 0;
}

static long elapsed_ms(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* A step a child runs: 0 on success, else the errno of the first step that failed. A
 * step that execs returns only when the exec failed. */
typedef int (*child_step_t)(const void *argument);

/*
 * Runs `step` in a forked child, which sends its answer back through a close-on-exec
 * pipe and exits at once (_exit: no handler of the parent runs in it). A child that
 * sends nothing exec'd (allowed when its program then exited 0) or was killed (blocked,
 * with the signal's name). A child still there after CHILD_TIMEOUT_MS is killed.
 * Only system calls run in the child: the worker has other threads.
 */
static outcome_t in_child(child_step_t step, const void *argument) {
    int channel[2];
    if (pipe2(channel, O_CLOEXEC) != 0) return denied(errno);
    pid_t child = fork();
    if (child < 0) {
        int error = errno;
        close(channel[0]);
        close(channel[1]);
        return denied(error);
    }
    if (child == 0) {
        close(channel[0]);
        int answer = step(argument);
        ssize_t written = write(channel[1], &answer, sizeof answer);
        _exit(written == (ssize_t)sizeof answer ? 0 : 1);
    }
    close(channel[1]);

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int answer = 0;
    ssize_t received = -1;
    struct pollfd readable = {channel[0], POLLIN, 0};
    for (;;) {
        long left = CHILD_TIMEOUT_MS - elapsed_ms(&start);
        int ready = poll(&readable, 1, left > 0 ? (int)left : 0);
        if (ready < 0 && errno == EINTR) continue;
        if (ready > 0) {
            do received = read(channel[0], &answer, sizeof answer);
            while (received < 0 && errno == EINTR);
        }
        break;
    }
    close(channel[0]);

    int status = 0;
    pid_t ended;
    for (;;) {
        do ended = waitpid(child, &status, WNOHANG);
        while (ended < 0 && errno == EINTR);
        if (ended != 0 || elapsed_ms(&start) >= CHILD_TIMEOUT_MS) break;
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
    }
    if (ended == 0) {
        kill(child, SIGKILL);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        return blocked("timeout");
    }
    if (received == (ssize_t)sizeof answer) return answer == 0 ? allowed("") : denied(answer);
    if (ended > 0 && WIFSIGNALED(status)) return killed_by(WTERMSIG(status));
    if (ended > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return allowed("");
    if (ended < 0) return blocked("lost-child");  /* reaped by someone else: the answer is unknown */
    char exit_status[24];
    snprintf(exit_status, sizeof exit_status, "exit-%d", WEXITSTATUS(status));
    return blocked(exit_status);
}

/* Connects a non-blocking socket of `family` to `address`: allowed when the connection
 * is made within CONNECT_TIMEOUT_MS. Closes the socket. */
static outcome_t connect_to(int family, const struct sockaddr *address, socklen_t length) {
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return denied(errno);
    int error = 0;
    if (connect(fd, address, length) != 0) {
        error = errno;
        if (error == EINPROGRESS) {
            struct pollfd writable = {fd, POLLOUT, 0};
            int ready;
            while ((ready = poll(&writable, 1, CONNECT_TIMEOUT_MS)) < 0 && errno == EINTR) {}
            socklen_t size = sizeof error;
            if (ready == 0) error = ETIMEDOUT;
            else if (ready < 0) error = errno;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
        }
    }
    close(fd);
    return error == 0 ? allowed("") : denied(error);
}

static struct sockaddr_in loopback(int port) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

/* ---- The attempts: files ------------------------------------------------------------------- */

static outcome_t read_passwd(const char *place) {
    (void)place;
    return by_descriptor(open("/etc/passwd", O_RDONLY | O_CLOEXEC));
}

static outcome_t read_secret(const char *place) {
    (void)place;
    return by_descriptor(open(SECRET_PATH, O_RDONLY | O_CLOEXEC));
}

/* Creates WRITE_DIR/escape-<place> and removes it again. */
static outcome_t write_home(const char *place) {
    char path[4096];
    snprintf(path, sizeof path, "%s/escape-%s", WRITE_DIR, place);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return denied(errno);
    close(fd);
    unlink(path);
    return allowed("");
}

/* ---- The attempts: network ----------------------------------------------------------------- */

static outcome_t tcp_listen(const char *place) {
    (void)place;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return denied(errno);
    struct sockaddr_in address = loopback(0);
    int error = 0;
    if (bind(fd, (const struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 1) != 0) error = errno;
    close(fd);
    return error == 0 ? allowed("") : denied(error);
}

static outcome_t tcp_connect(const char *place) {
    (void)place;
    struct sockaddr_in address = loopback(TCP_PORT);
    return connect_to(AF_INET, (const struct sockaddr *)&address, sizeof address);
}

static outcome_t udp_send(const char *place) {
    (void)place;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return denied(errno);
    struct sockaddr_in address = loopback(TCP_PORT);
    ssize_t sent = sendto(fd, "escape", 6, 0, (const struct sockaddr *)&address, sizeof address);
    int error = sent < 0 ? errno : 0;
    close(fd);
    return error == 0 ? allowed("") : denied(error);
}

static outcome_t unix_abstract(const char *place) {
    (void)place;
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    size_t length = strlen(ABSTRACT_NAME);
    if (length + 1 > sizeof address.sun_path) return blocked("name-too-long");
    memcpy(address.sun_path + 1, ABSTRACT_NAME, length);  /* sun_path[0] == 0: abstract */
    return connect_to(AF_UNIX, (const struct sockaddr *)&address,
                      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length));
}

static outcome_t unix_path(const char *place) {
    (void)place;
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (strlen(UNIX_PATH) >= sizeof address.sun_path) return blocked("path-too-long");
    strcpy(address.sun_path, UNIX_PATH);
    return connect_to(AF_UNIX, (const struct sockaddr *)&address, sizeof address);
}

/* ---- The attempts: programs ---------------------------------------------------------------- */

static int exec_true(const void *unused) {
    (void)unused;
    char *const arguments[] = {"true", NULL};
    char *const environment[] = {NULL};
    execve("/bin/true", arguments, environment);
    return errno;
}

static int fexec_descriptor(const void *fd) {
    char *const arguments[] = {"true", NULL};
    char *const environment[] = {NULL};
    fexecve(*(const int *)fd, arguments, environment);
    return errno;
}

static outcome_t exec_program(const char *place) {
    (void)place;
    return in_child(exec_true, NULL);
}

/* Copies /bin/true into a memfd and runs that: a program from no file on disk. */
static outcome_t exec_memfd(const char *place) {
    (void)place;
    int source = open("/bin/true", O_RDONLY | O_CLOEXEC);
    if (source < 0) return denied(errno);
    int memory = memfd_create("escape", MFD_CLOEXEC);
    if (memory < 0) {
        int error = errno;
        close(source);
        return denied(error);
    }
    int error = 0;
    char buffer[16384];
    for (;;) {
        ssize_t got = read(source, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (got < 0) error = errno;
            break;
        }
        for (ssize_t done = 0; done < got && !error;) {
            ssize_t put = write(memory, buffer + done, (size_t)(got - done));
            if (put < 0 && errno != EINTR) error = errno;
            if (put > 0) done += put;
        }
        if (error) break;
    }
    close(source);
    outcome_t outcome = error ? denied(error) : in_child(fexec_descriptor, &memory);
    close(memory);
    return outcome;
}

/* ---- The attempts: the host process -------------------------------------------------------- */

static outcome_t open_host_file(const char *name) {
    pid_t host = host_pid();
    if (!host) return denied(ESRCH);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)host, name);
    return by_descriptor(open(path, O_RDONLY | O_CLOEXEC));
}

static outcome_t host_environ(const char *place) {
    (void)place;
    return open_host_file("environ");
}

static outcome_t host_mem(const char *place) {
    (void)place;
    return open_host_file("mem");
}

/* Reads 8 bytes of the host's memory at the address of a local variable: the kernel's
 * permission check is what matters, so EFAULT (nothing mapped there) counts as allowed. */
static outcome_t host_vm_read(const char *place) {
    (void)place;
    pid_t host = host_pid();
    if (!host) return denied(ESRCH);
    uint64_t here = 0, there = 0;
    struct iovec local = {&there, sizeof there};
    struct iovec remote = {&here, sizeof here};
    ssize_t got = process_vm_readv(host, &local, 1, &remote, 1, 0);
    if (got < 0 && errno != EFAULT) return denied(errno);
    return allowed("");
}

/* PTRACE_SEIZE does not stop the tracee. The child seizes, answers and exits, and the
 * kernel detaches a tracer's tracees when it exits (PTRACE_DETACH itself would need the
 * host stopped first): the host is never left traced. */
static int seize(const void *pid) {
    return ptrace(PTRACE_SEIZE, *(const pid_t *)pid, NULL, NULL) == 0 ? 0 : errno;
}

static outcome_t host_ptrace(const char *place) {
    (void)place;
    pid_t host = host_pid();
    if (!host) return denied(ESRCH);
    return in_child(seize, &host);
}

static outcome_t host_signal(const char *place) {
    (void)place;
    pid_t host = host_pid();
    if (!host) return denied(ESRCH);
    return by_result(kill(host, 0));
}

/* ---- The attempts: namespaces and privileges (each in a child) ----------------------------- */

static int new_user_namespace(const void *unused) {
    (void)unused;
    return unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
}

/* Mounts a tmpfs over WRITE_DIR. The new namespace's mounts are made private first, so
 * the tmpfs cannot propagate to the host's namespace; the namespace ends with the child. */
static int mount_tmpfs(const void *unused) {
    (void)unused;
    if (unshare(CLONE_NEWNS) != 0) return errno;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return errno;
    if (mount("none", WRITE_DIR, "tmpfs", 0, "size=64k") != 0) return errno;
    return 0;
}

static int change_root(const void *unused) {
    (void)unused;
    return chroot("/") == 0 ? 0 : errno;
}

static outcome_t userns(const char *place) {
    (void)place;
    return in_child(new_user_namespace, NULL);
}

static outcome_t mountns_tmpfs(const char *place) {
    (void)place;
    return in_child(mount_tmpfs, NULL);
}

static outcome_t chroot_root(const char *place) {
    (void)place;
    return in_child(change_root, NULL);
}

/* ---- The attempts: kernel interfaces ------------------------------------------------------- */

/* Loads a socket filter that returns 0 ("mov r0, 0; exit"). */
static outcome_t bpf_load(const char *place) {
    (void)place;
    struct bpf_insn program[2];
    memset(program, 0, sizeof program);
    program[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
    program[0].dst_reg = BPF_REG_0;
    program[1].code = BPF_JMP | BPF_EXIT;
    union bpf_attr attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
    attributes.insn_cnt = 2;
    attributes.insns = (uint64_t)(uintptr_t)program;
    attributes.license = (uint64_t)(uintptr_t)"GPL";
    return by_descriptor(syscall(SYS_bpf, BPF_PROG_LOAD, &attributes, sizeof attributes));
}

static outcome_t perf_open(const char *place) {
    (void)place;
    struct perf_event_attr attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.size = sizeof attributes;
    attributes.type = PERF_TYPE_SOFTWARE;
    attributes.config = PERF_COUNT_SW_CPU_CLOCK;
    attributes.disabled = 1;
    attributes.exclude_kernel = 1;
    attributes.exclude_hv = 1;
    return by_descriptor(syscall(SYS_perf_event_open, &attributes, 0, -1, -1, 0));
}

static outcome_t uring_setup(const char *place) {
    (void)place;
#ifdef SYS_io_uring_setup
    /* struct io_uring_params is 120 bytes; zeroed, it asks for nothing special. */
    uint64_t parameters[15];
    memset(parameters, 0, sizeof parameters);
    return by_descriptor(syscall(SYS_io_uring_setup, 1, parameters));
#else
    return denied(ENOSYS);
#endif
}

static outcome_t uffd_open(const char *place) {
    (void)place;
    return by_descriptor(syscall(SYS_userfaultfd, O_CLOEXEC));
}

/* Adds a key to the process keyring, and unlinks it again. */
static outcome_t key_add(const char *place) {
    (void)place;
    long key = syscall(SYS_add_key, "user", "escape", "x", (size_t)1, KEY_SPEC_PROCESS_KEYRING);
    if (key < 0) return denied(errno);
    syscall(SYS_keyctl, KEYCTL_UNLINK, key, KEY_SPEC_PROCESS_KEYRING);
    return allowed("");
}

/* ---- The attempts: what the process was given ---------------------------------------------- */

static outcome_t capabilities(const char *place) {
    (void)place;
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capget, &header, data) != 0) return denied(errno);
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
        if (data[i].effective || data[i].permitted) return allowed("");
    }
    return blocked("none");
}

static outcome_t no_new_privs(const char *place) {
    (void)place;
    int set = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
    if (set < 0) return denied(errno);
    return set ? blocked("set") : allowed("");
}

static outcome_t env_secret(const char *place) {
    (void)place;
    return getenv("PLUGBOARD_TEST_SECRET") ? allowed("") : blocked("unset");
}

/* Sets the secret file's mode to what it is (harmless): changing a file's metadata, which
 * Landlock does not see. */
static outcome_t chmod_secret(const char *place) {
    (void)place;
    struct stat status;
    if (stat(SECRET_PATH, &status) != 0) return denied(errno);
    return by_result(chmod(SECRET_PATH, status.st_mode & 07777));
}

/* A Unix datagram socket pair (which could send to path sockets). */
static outcome_t socketpair_dgram(const char *place) {
    (void)place;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) != 0) return denied(errno);
    close(pair[0]);
    close(pair[1]);
    return allowed("");
}

/* An inotify instance (which could watch folders it cannot read). */
static outcome_t inotify(const char *place) {
    (void)place;
    return by_descriptor(inotify_init1(IN_CLOEXEC));
}

/* Setting the host's open-file limit to what it is (harmless): a worker that could change it could
 * leave the host without descriptors, or without CPU time. */
static outcome_t host_limits(const char *place) {
    (void)place;
    struct rlimit limit;
    if (prlimit(host_pid(), RLIMIT_NOFILE, NULL, &limit) != 0) return denied(errno);
    return by_result(prlimit(host_pid(), RLIMIT_NOFILE, &limit, NULL));
}

/* A private System V shared memory segment, removed at once: with System V IPC, shared by every
 * process of the user, a worker could attach another process's segments. */
/* Takes a real uid of 0 again, on a thread of its own (a system call changes the calling thread
 * alone, and the thread then ends): the kernel never limits the threads of real uid 0. */
static void *regain_real_root(void *error) {
    *(int *)error = syscall(SYS_setresuid, 0, -1, -1) == 0 ? 0 : errno;
    return NULL;
}

static outcome_t real_uid_root(const char *place) {
    (void)place;
    int error = 0;
    pthread_t thread;
    int started = pthread_create(&thread, NULL, regain_real_root, &error);
    if (started != 0) return denied(started);
    pthread_join(thread, NULL);
    return error ? denied(error) : allowed("");
}

static outcome_t sysv_shm(const char *place) {
    (void)place;
    int segment = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    if (segment < 0) return denied(errno);
    shmctl(segment, IPC_RMID, NULL);
    return allowed("");
}

/* Setting its death signal to what it is, SIGKILL (harmless): a worker that could change it would
 * outlive a host killed while the worker is busy. */
static outcome_t death_signal(const char *place) {
    (void)place;
    return by_result(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0));
}

/* Making itself undumpable, as it is (harmless): a dumpable worker could be traced and read. */
static outcome_t dumpable(const char *place) {
    (void)place;
    return by_result(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
}

/* A child process that exits at once (a process could outlive its worker). */
static outcome_t fork_child(const char *place) {
    (void)place;
    pid_t child = fork();
    if (child < 0) return denied(errno);
    if (child == 0) _exit(0);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    return allowed("");
}

/* Any descriptor from 6 on (0-2 stdio, 3 the worker's channel, 4 the sandbox's report
 * pipe, 5 the worker's concurrent channel); the attempts before this one closed theirs. */
static outcome_t inherited_fd(const char *place) {
    (void)place;
    for (int fd = 6; fd < 1024; fd++) {
        if (fcntl(fd, F_GETFD) != -1) {
            char number[16];
            snprintf(number, sizeof number, "%d", fd);
            return allowed(number);
        }
    }
    return blocked("none");
}

/* ---- The table and the places ------------------------------------------------------------ */

static const struct {
    const char *name;
    outcome_t (*attempt)(const char *place);
} attempts[] = {
    {"read-passwd", read_passwd},
    {"read-secret", read_secret},
    {"write-home", write_home},
    {"tcp-listen", tcp_listen},
    {"tcp-connect", tcp_connect},
    {"udp-send", udp_send},
    {"unix-abstract", unix_abstract},
    {"unix-path", unix_path},
    {"exec", exec_program},
    {"exec-memfd", exec_memfd},
    {"host-environ", host_environ},
    {"host-mem", host_mem},
    {"host-vm-read", host_vm_read},
    {"host-ptrace", host_ptrace},
    {"host-signal", host_signal},
    {"host-limits", host_limits},
    {"userns", userns},
    {"mountns-tmpfs", mountns_tmpfs},
    {"chroot", chroot_root},
    {"bpf", bpf_load},
    {"perf", perf_open},
    {"io-uring", uring_setup},
    {"userfaultfd", uffd_open},
    {"keyctl", key_add},
    {"capabilities", capabilities},
    {"no-new-privs", no_new_privs},
    {"env-secret", env_secret},
    {"chmod-secret", chmod_secret},
    {"socketpair-dgram", socketpair_dgram},
    {"inotify", inotify},
    {"sysv-shm", sysv_shm},
    {"real-uid-root", real_uid_root},
    {"death-signal", death_signal},
    {"dumpable", dumpable},
    {"fork", fork_child},
    {"inherited-fd", inherited_fd},  /* last: every other attempt closed what it opened */
};

static const pb_host_t *host;

/* Runs every attempt at `place`; reports through `via`'s log service on behalf of
 * `plugin` (NULL: the library), or on standard output when `via` is NULL. */
static void run_attempts(const char *place, const pb_host_t *via, const char *plugin) {
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        outcome_t outcome = attempts[i].attempt(place);
        char line[160];
        snprintf(line, sizeof line, "escape %s %s %s%s%s", place, attempts[i].name,
                 outcome.allowed ? "allowed" : "blocked", outcome.detail[0] ? " " : "", outcome.detail);
        if (via) {
            via->log(via, plugin, PB_LOG_INFO, line);
        } else {
            printf("%s\n", line);
            fflush(stdout);
        }
    }
}

__attribute__((constructor)) static void at_load(void) { run_attempts("constructor", NULL, NULL); }

static void *thread_attempts(void *unused) {
    (void)unused;
    run_attempts("thread", host, PLUGIN_ID);
    return NULL;
}

static bool did_finish_launching(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    run_attempts("callback", host, PLUGIN_ID);
    pthread_t thread;
    int error = pthread_create(&thread, NULL, thread_attempts, NULL);
    if (error == 0) {
        pthread_join(thread, NULL);
    } else {
        /* No thread line at all: the corpus did not run there, which a test must see. */
        char line[80];
        snprintf(line, sizeof line, "escape thread not-started %s", denied(error).detail);
        host->log(host, PLUGIN_ID, PB_LOG_WARNING, line);
    }
    return true;
}

static const pb_launch_t launch = {sizeof(pb_launch_t), NULL, did_finish_launching};

static bool init(const pb_host_t *h) {
    host = h;
    run_attempts("init", host, NULL);
    return true;
}

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.id = PLUGIN_ID;
    plugin.name = "Sandbox escape corpus";
    plugin.launch = &launch;
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL,
                                 register_plugins};
PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
