#define _GNU_SOURCE
#include "pb_sandbox.h"
#include "landlock_abi.h"
#include "fault_reporter.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Errors ----------------------------------------------------------------------------- */

/* Writes "what: cause" to `error` and returns -1; `cause` is errno's text when errno is set. */
static int fail(char *error, size_t size, int saved_errno, const char *format, ...) {
    va_list list;
    va_start(list, format);
    int length = vsnprintf(error, size, format, list);
    va_end(list);
    if (saved_errno && length >= 0 && (size_t)length < size) {
        snprintf(error + length, size - (size_t)length, ": %s", strerror(saved_errno));
    }
    return -1;
}

/* ---- Descriptors, threads, limits, privileges --------------------------------------------- */

/* The number of threads of this process, from /proc/self/task; -1 when it cannot be read. */
static int thread_count(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(tasks));) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(tasks);
    return count;
}

/* Closes every descriptor from `first` on. */
static int close_from(int first) {
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return 0;
    if (errno != ENOSYS) return -1;
    for (int fd = first; fd < 65536; fd++) close(fd);
    return 0;
}

/* Lowers `resource` to `value` (soft and hard; never raises either). */
static int limit(int resource, uint64_t value) {
    struct rlimit current;
    if (getrlimit(resource, &current) != 0) return -1;
    rlim_t wanted = (rlim_t)value;
    struct rlimit lowered = {
        .rlim_cur = current.rlim_cur < wanted ? current.rlim_cur : wanted,
        .rlim_max = current.rlim_max < wanted ? current.rlim_max : wanted,
    };
    return setrlimit(resource, &lowered);
}

/* Empties the bounding, ambient, inheritable, permitted and effective capability sets. */
static int drop_capabilities(char *error, size_t size) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return fail(error, size, errno, "cannot read the capabilities");
    int can_drop_bounding = (data[0].effective >> CAP_SETPCAP) & 1;
    for (int cap = 0; cap < 64; cap++) {
        if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 1) continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && can_drop_bounding) {
            return fail(error, size, errno, "cannot drop capability %d from the bounding set", cap);
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
        return fail(error, size, errno, "cannot clear the ambient capabilities");
    }
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) != 0) return fail(error, size, errno, "cannot drop the capabilities");
    return 0;
}

/* ---- Counting a worker's threads apart ------------------------------------------------------- */

/* The real uids a worker of a host running as root takes: 0x7F000000 and 24 bits. */
#define PBS_OWN_UID_BASE 0x7F000000u

/* Writes `text` to the file at `path`; 0, or -1 with errno. */
static int write_text(const char *path, const char *text) {
    int file = open(path, O_WRONLY | O_CLOEXEC);
    if (file < 0) return -1;
    size_t length = strlen(text);
    ssize_t written = write(file, text, length);
    int saved = errno;
    close(file);
    errno = saved;
    return written == (ssize_t)length ? 0 : -1;
}

/* The two ways ::count_apart counts a process apart. */
typedef enum { PBS_OWN_UID, PBS_OWN_USER_NAMESPACE } pbs_way_t;

/* Takes a real uid of the process's own: its process id (below 2^22) mixed with its pid namespace's
   inode, so that two workers of one pid namespace never share one, and two of different namespaces
   (hosts in containers that share the first user namespace) about one pair in 16 million. 0, or -1
   with errno. */
static int take_own_uid(void) {
    struct stat pid_namespace;
    uint32_t mix = stat("/proc/self/ns/pid", &pid_namespace) == 0 ? (uint32_t)pid_namespace.st_ino * 0x9E3779B1u : 0;
    uid_t own = PBS_OWN_UID_BASE + ((mix + (uint32_t)syscall(SYS_getpid)) & 0xFFFFFFu);
    return (int)syscall(SYS_setresuid, own, (uid_t)-1, (uid_t)-1);
}

/* A user namespace's maps of one user and one group to themselves, made before the namespace. */
typedef struct {
    char uid_map[32];
    char gid_map[32];
} pbs_maps_t;

static pbs_maps_t own_maps(void) {
    pbs_maps_t maps;
    snprintf(maps.uid_map, sizeof maps.uid_map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(maps.gid_map, sizeof maps.gid_map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
    return maps;
}

/* Writes `maps` for the calling process, just in a user namespace of its own; 0, or -1 with errno. */
static int write_maps(const pbs_maps_t *maps) {
    if (write_text("/proc/self/uid_map", maps->uid_map) != 0) return -1;
    if (write_text("/proc/self/setgroups", "deny") != 0 && errno != ENOENT) return -1;
    return write_text("/proc/self/gid_map", maps->gid_map);
}

/* What ::count_apart did. */
typedef enum {
    PBS_COUNTED_APART = 0,
    /* It could not, and changed nothing. */
    PBS_UNCHANGED = -1,
    /* It could not, after it made a user namespace (its maps were refused). */
    PBS_PARTLY_CHANGED = -2,
} pbs_counted_t;

/* Makes RLIMIT_NPROC count the calling process's threads and processes apart from every other
   process's: the kernel counts them per real uid and user namespace, and never limits real uid 0.
   A process whose real uid is 0 takes a real uid of its own (::take_own_uid), keeping its effective
   and saved uids (the files it reaches stay the same; the seccomp filter refuses a real uid of 0
   again); where that uid cannot be had (root of a container, where it is not mapped), or for any
   other user, the process makes a user namespace of its own that maps its uid and gid to themselves.
   Call it while the process has one thread and is dumpable (its /proc maps must be writable);
   ::limit_holds says whether it worked, once the capabilities are dropped. errno says why not. */
static pbs_counted_t count_apart(void) {
    if (getuid() == 0) {
        if (take_own_uid() == 0) return PBS_COUNTED_APART;
        if (errno != EINVAL) return PBS_UNCHANGED;
    }
    pbs_maps_t maps = own_maps();
    if (syscall(SYS_unshare, CLONE_NEWUSER) != 0) return PBS_UNCHANGED;
    return write_maps(&maps) == 0 ? PBS_COUNTED_APART : PBS_PARTLY_CHANGED;
}

static int exit_at_once(void *unused) {
    (void)unused;
    syscall(SYS_exit, 0);
    return 0;
}

/* Whether RLIMIT_NPROC holds the calling process, which has no CAP_SYS_RESOURCE or CAP_SYS_ADMIN
   in effect (either exempts it): with a soft limit of 0, a new process must be refused (EAGAIN); a
   real uid of 0 of the first user namespace is exempt whatever the limit. The limit is restored. */
static int limit_holds(void) {
    struct rlimit saved;
    if (getrlimit(RLIMIT_NPROC, &saved) != 0) return 0;
    struct rlimit none = {.rlim_cur = 0, .rlim_max = saved.rlim_max};
    if (setrlimit(RLIMIT_NPROC, &none) != 0) return 0;
    char stack[4096] __attribute__((aligned(16)));
    pid_t child = clone(exit_at_once, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    int refused = child < 0 && errno == EAGAIN;
    while (child > 0 && waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
    setrlimit(RLIMIT_NPROC, &saved);
    return refused;
}

/* What the probe's child tries: one way of ::count_apart. */
typedef struct {
    pbs_way_t way;
    pbs_maps_t maps;
} pbs_probe_step_t;

/* The probe's child: it shares the caller's memory (the caller waits, suspended, its signals
   blocked), so it calls the C library's system-call wrappers only, and ends with the answer: 0 the
   limit holds, 2 the uid is not mapped (EINVAL), 1 refused or exempt. */
static int probe_step(void *argument) {
    const pbs_probe_step_t *step = argument;
    int result = step->way == PBS_OWN_UID ? take_own_uid() : write_maps(&step->maps);
    char unused[128];
    int answer = result == 0 ? (drop_capabilities(unused, sizeof unused) == 0 && limit_holds() ? 0 : 1) : errno == EINVAL ? 2 : 1;
    syscall(SYS_exit, answer);
    return 1;
}

/* Tries `way` in a child that shares this process's memory (no copy of its pages: a fork of a large
   host costs about a millisecond) and, for a user namespace, starts in one. Every signal is blocked
   meanwhile (a handler of the host's must not run in the child), and errno kept (the child's
   wrappers set the caller's). Returns the child's answer. */
static int probe_way(pbs_way_t way) {
    int saved_errno = errno;
    pbs_probe_step_t step = {.way = way, .maps = own_maps()};
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    char stack[32768] __attribute__((aligned(16)));
    int flags = CLONE_VM | CLONE_VFORK | SIGCHLD | (way == PBS_OWN_USER_NAMESPACE ? CLONE_NEWUSER : 0);
    pid_t child = clone(probe_step, stack + sizeof stack, flags, &step);
    int status = 0;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved_errno;
    return child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Whether ::count_apart works here and the limit then holds, tried as a worker would, in children.
   A real uid of its own holds only under the seccomp filter, which refuses a real uid of 0 again. */
static int probe_count_apart(int seccomp) {
    if (getuid() == 0) {
        int answer = probe_way(PBS_OWN_UID);
        if (answer != 2) return answer == 0 && seccomp;
    }
    return probe_way(PBS_OWN_USER_NAMESPACE) == 0;
}

/* ---- Probing ---------------------------------------------------------------------------- */

void pbs_probe(pbs_support_t *support) {
    long abi = syscall(PBS_SYS_landlock_create_ruleset, NULL, 0, PBS_LANDLOCK_CREATE_RULESET_VERSION);
    support->landlock_abi = abi > 0 ? (int)abi : 0;
    uint32_t trap = SECCOMP_RET_TRAP;
    support->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
                       syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &trap) == 0 &&
                       seccomp_api_get() >= 1;
    int watch = (int)syscall(SYS_pidfd_open, getpid(), 0);
    support->pidfd = watch >= 0;
    if (watch >= 0) close(watch);
    support->threads = probe_count_apart(support->seccomp);
}

/* ---- Landlock ------------------------------------------------------------------------------ */

/* Every filesystem right the kernel's ABI `abi` knows: all of them are handled (denied unless a rule allows). */
static uint64_t handled_files(int abi) {
    uint64_t rights = (PBS_FS_MAKE_SYM << 1) - 1;
    if (abi >= 2) rights |= PBS_FS_REFER;
    if (abi >= 3) rights |= PBS_FS_TRUNCATE;
    if (abi >= 5) rights |= PBS_FS_IOCTL_DEV;
    return rights;
}

#define PBS_READ (PBS_FS_READ_FILE | PBS_FS_READ_DIR)
#define PBS_WRITE (PBS_READ | PBS_FS_WRITE_FILE | PBS_FS_REMOVE_DIR | PBS_FS_REMOVE_FILE | PBS_FS_MAKE_DIR | \
                   PBS_FS_MAKE_REG | PBS_FS_MAKE_SYM | PBS_FS_REFER | PBS_FS_TRUNCATE)

/* Allows `rights` (within `handled`) beneath each of `paths`; a path that does not exist is skipped. */
static int allow_paths(int ruleset, const char *const *paths, size_t count, uint64_t rights, uint64_t handled,
                       char *error, size_t size) {
    for (size_t i = 0; i < count; i++) {
        int fd = open(paths[i], O_PATH | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT || errno == ENOTDIR) continue;
            return fail(error, size, errno, "cannot open '%s' for a sandbox rule", paths[i]);
        }
        struct stat status;
        uint64_t allowed = rights & handled;
        if (fstat(fd, &status) == 0 && !S_ISDIR(status.st_mode)) allowed &= PBS_FS_FILE_RIGHTS;
        struct pbs_landlock_path_beneath_attr rule = {.allowed_access = allowed, .parent_fd = fd};
        long added = allowed ? syscall(PBS_SYS_landlock_add_rule, ruleset, PBS_LANDLOCK_RULE_PATH_BENEATH, &rule, 0) : 0;
        int saved = errno;
        close(fd);
        if (added != 0) return fail(error, size, saved, "cannot add the Landlock rule for '%s'", paths[i]);
    }
    return 0;
}

/* Allows `right` on each of `ports`. */
static int allow_ports(int ruleset, const uint16_t *ports, size_t count, uint64_t right, char *error, size_t size) {
    for (size_t i = 0; i < count; i++) {
        struct pbs_landlock_net_port_attr rule = {.allowed_access = right, .port = ports[i]};
        if (syscall(PBS_SYS_landlock_add_rule, ruleset, PBS_LANDLOCK_RULE_NET_PORT, &rule, 0) != 0) {
            return fail(error, size, errno, "cannot add the Landlock rule for TCP port %u", ports[i]);
        }
    }
    return 0;
}

/* Allows reading `path` when it is a regular file (and, with `elf_only`, an ELF file), checked on
   the descriptor the rule is made from, so a path swapped after a check cannot widen the rule. */
static int allow_file(int ruleset, const char *path, int elf_only, char *error, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return 0;
    struct stat status;
    unsigned char magic[4] = {0};
    int allowed = fstat(fd, &status) == 0 && S_ISREG(status.st_mode) &&
                  (!elf_only || (pread(fd, magic, 4, 0) == 4 && memcmp(magic, "\x7f" "ELF", 4) == 0));
    struct pbs_landlock_path_beneath_attr rule = {.allowed_access = PBS_FS_READ_FILE, .parent_fd = fd};
    long added = allowed ? syscall(PBS_SYS_landlock_add_rule, ruleset, PBS_LANDLOCK_RULE_PATH_BENEATH, &rule, 0) : 0;
    int saved = errno;
    close(fd);
    return added != 0 ? fail(error, size, saved, "cannot add the Landlock rule for '%s'", path) : 0;
}

/* Allows reading the files this process runs on: every file mapped now (its executable and
   libraries), and for the Swift runtime (libswiftCore.so) its whole folder, whose other
   libraries the runtime may open later. Read from /proc/self/maps with no allocation. */
static int allow_mapped_files(int ruleset, uint64_t handled, char *error, size_t size) {
    int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (maps < 0) return fail(error, size, errno, "cannot read /proc/self/maps");
    static char text[1 << 17];
    size_t length = 0;
    for (ssize_t got; length < sizeof text - 1 && (got = read(maps, text + length, sizeof text - 1 - length)) != 0;) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        length += (size_t)got;
    }
    close(maps);
    text[length] = 0;
    char previous[4096] = "";
    int result = 0;
    for (char *line = text; result == 0 && line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        char *path = strchr(line, '/');
        if (path && strcmp(path, previous) != 0 && !strstr(path, " (deleted)")) {
            snprintf(previous, sizeof previous, "%s", path);
            char *slash = strrchr(path, '/');
            const char *target = path;
            char folder[4096];
            if (slash && strncmp(slash + 1, "libswiftCore.so", 15) == 0) {
                snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
                target = folder;
            }
            result = allow_paths(ruleset, &target, 1, PBS_READ, handled, error, size);
        }
        line = end ? end + 1 : NULL;
    }
    return result;
}

static int apply_landlock(const pbs_rules_t *rules, char *error, size_t size) {
    int abi = rules->landlock_abi;
    struct pbs_landlock_ruleset_attr attributes = {.handled_access_fs = handled_files(abi)};
    size_t attributes_size = offsetof(struct pbs_landlock_ruleset_attr, handled_access_net);
    if (abi >= PBS_LANDLOCK_TCP) {
        attributes_size = offsetof(struct pbs_landlock_ruleset_attr, scoped);
        if (!rules->network_all) attributes.handled_access_net = PBS_NET_BIND_TCP | PBS_NET_CONNECT_TCP;
    }
    if (abi >= PBS_LANDLOCK_SCOPES) {
        attributes_size = sizeof attributes;
        attributes.scoped = PBS_SCOPE_SIGNAL | (rules->network_all ? 0 : PBS_SCOPE_ABSTRACT_UNIX_SOCKET);
    }
    int ruleset = (int)syscall(PBS_SYS_landlock_create_ruleset, &attributes, attributes_size, 0);
    if (ruleset < 0) return fail(error, size, errno, "cannot create the Landlock ruleset (ABI %d)", abi);
    uint64_t handled = attributes.handled_access_fs;
    int result = allow_paths(ruleset, rules->read_paths, rules->read_count, PBS_READ, handled, error, size);
    if (result == 0) result = allow_mapped_files(ruleset, handled, error, size);
    for (size_t i = 0; result == 0 && i < rules->library_count; i++) {
        result = allow_file(ruleset, rules->library_paths[i], 0, error, size);
    }
    for (size_t i = 0; result == 0 && i < rules->needed_count; i++) {
        result = allow_file(ruleset, rules->needed_paths[i], 1, error, size);
    }
    if (result == 0) result = allow_paths(ruleset, rules->write_paths, rules->write_count, PBS_WRITE, handled, error, size);
    if (result == 0) {
        result = allow_paths(ruleset, rules->execute_paths, rules->execute_count, PBS_FS_EXECUTE | PBS_FS_READ_FILE,
                             handled, error, size);
    }
    if (result == 0 && attributes.handled_access_net) {
        result = allow_ports(ruleset, rules->connect_ports, rules->connect_count, PBS_NET_CONNECT_TCP, error, size);
        if (result == 0) result = allow_ports(ruleset, rules->bind_ports, rules->bind_count, PBS_NET_BIND_TCP, error, size);
    }
    if (result == 0 && syscall(PBS_SYS_landlock_restrict_self, ruleset, 0) != 0) {
        result = fail(error, size, errno, "cannot restrict the worker with Landlock");
    }
    close(ruleset);
    return result;
}

/* ---- seccomp --------------------------------------------------------------------------------- */

/* Where the trap handler writes its reports. */
static int report_descriptor = -1;

/* Copies `text` into `buffer` of `size` bytes, cut and NUL-terminated; async-signal-safe. */
static void copy_text(char *buffer, size_t size, const char *text) {
    size_t i = 0;
    for (; text && text[i] && i + 1 < size; i++) buffer[i] = text[i];
    buffer[i] = 0;
}

/* IOPRIO_WHO_PROCESS of <linux/ioprio.h>, which glibc does not export. */
enum { IOPRIO_WHO_PROCESS = 1 };

/* Whether trapped call `call` names the calling thread (for prlimit64, its process) by id, as glibc's
   pthread_setaffinity_np(pthread_self(), …) does, rather than by 0; then `arguments` name it by 0,
   with only the bits the kernel reads. Async-signal-safe. */
static int names_caller(long call, uint64_t arguments[6]) {
    int thread = (int)syscall(SYS_gettid);
    int target = (int)arguments[0];
    switch (call) {
    case SYS_prlimit64:
        if (target != thread && target != getpid()) return 0;
        arguments[0] = 0;
        return 1;
    case SYS_sched_setaffinity: case SYS_sched_setscheduler: case SYS_sched_setparam: case SYS_sched_setattr:
        if (target != thread) return 0;
        arguments[0] = 0;
        return 1;
    case SYS_setpriority:
        if ((int)arguments[0] != PRIO_PROCESS || (int)arguments[1] != thread) return 0;
        arguments[0] = PRIO_PROCESS;
        arguments[1] = 0;
        return 1;
    case SYS_ioprio_set:
        if ((int)arguments[0] != IOPRIO_WHO_PROCESS || (int)arguments[1] != thread) return 0;
        arguments[0] = IOPRIO_WHO_PROCESS;
        arguments[1] = 0;
        return 1;
    default:
        return 0;
    }
}

/* A refused system call: reported on the report descriptor (never blocking), answered with EPERM.
   A call about the worker's own scheduling or limits that names the calling thread by id is not
   refused: it is made again naming it 0, which the filter lets through. */
static void on_refused_call(int signal, siginfo_t *info, void *context) {
    (void)signal;
    int saved = errno;
    ucontext_t *state = context;
    uint64_t arguments[6];
#if defined(__x86_64__)
    const int registers[6] = {REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9};
    for (int i = 0; i < 6; i++) arguments[i] = (uint64_t)state->uc_mcontext.gregs[registers[i]];
#elif defined(__aarch64__)
    for (int i = 0; i < 6; i++) arguments[i] = state->uc_mcontext.regs[i];
#endif
    if (names_caller(info->si_syscall, arguments)) {
        long result = syscall(info->si_syscall, arguments[0], arguments[1], arguments[2], arguments[3], arguments[4],
                              arguments[5]);
        long answer = result == -1 ? -errno : result;
#if defined(__x86_64__)
        state->uc_mcontext.gregs[REG_RAX] = answer;
#elif defined(__aarch64__)
        state->uc_mcontext.regs[0] = (uint64_t)answer;
#endif
        errno = saved;
        return;
    }
    pbs_denial_t denial;
    memset(&denial, 0, sizeof denial);
    denial.call = info->si_syscall;
    for (int i = 0; i < 3; i++) denial.arguments[i] = arguments[i];
#if defined(__x86_64__)
    state->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
    state->uc_mcontext.regs[0] = (uint64_t)-EPERM;
#endif
    const char *callback = NULL;
    const pbf_label_t *label = pbf_running_here(&callback);
    if (label) {
        copy_text(denial.who, sizeof denial.who, label->who);
        copy_text(denial.callback, sizeof denial.callback, callback);
    }
    if (report_descriptor >= 0) {
        ssize_t written = write(report_descriptor, &denial, sizeof denial);
        (void)written;
    }
    errno = saved;
}

/* The system calls no plugin is given, whatever the policy grants: the kernel's privileged or
   rarely needed surface (namespaces, mounts, tracing, kernel programs and keyrings, …). */
static const char *const refused_calls[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount",
    "fspick", "move_mount", "open_tree", "mount_setattr", "open_by_handle_at", "name_to_handle_at",
    "bpf", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd",
    "keyctl", "add_key", "request_key", "init_module", "finit_module", "delete_module", "kexec_load",
    "kexec_file_load", "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "quotactl_fd",
    "lookup_dcookie", "vhangup", "uselib", "modify_ldt", "iopl", "ioperm", "fanotify_init",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "mbind", "migrate_pages",
    "move_pages", "execveat",
    /* A file's mode, owner, times and extended attributes: Landlock does not see these, so a
       worker (root's, say) could make any file setuid or readable. */
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes",
    "utimensat", "futimesat", "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr",
    "lremovexattr", "fremovexattr", "removexattrat",
    /* Watching folders it cannot read would show what happens in them. */
    "inotify_init", "inotify_init1",
    /* A new session or process group would escape the group the host ends with the worker. */
    "setsid", "setpgid",
    /* System V shared memory, message queues and semaphores are shared by every process of the user
       (Landlock does not see them): another process's segments could be read and written. */
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop",
    "semctl",
};

_Static_assert(PBS_CLONE_THREAD == CLONE_THREAD, "CLONE_THREAD");
_Static_assert(PBS_CLONE_NAMESPACES == (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC |
                                        CLONE_NEWUTS | CLONE_NEWCGROUP), "the namespace flags");
_Static_assert(PBS_PR_SET_PDEATHSIG == PR_SET_PDEATHSIG && PBS_PR_SET_DUMPABLE == PR_SET_DUMPABLE, "prctl options");

/* The namespace flags a clone may not carry. */
static const uint64_t namespace_flags[] = {
    CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
};

/* Adds a trap for `name` when `count` comparisons hold (a call this kernel lacks is skipped). */
static int trap(scmp_filter_ctx filter, const char *name, unsigned count, const struct scmp_arg_cmp *comparisons) {
    int call = seccomp_syscall_resolve_name(name);
    if (call == __NR_SCMP_ERROR) return 0;
    return seccomp_rule_add_array(filter, SCMP_ACT_TRAP, call, count, comparisons);
}

/* Other processes' scheduling, priority and limits, which Landlock does not see: with them a worker
   could slow the host, or any process of its user (nice value, CPU affinity, scheduling policy, I/O
   priority), or change its limits (a host left without open files or CPU time). Only the worker's
   own may be changed, named by 0 (the calling thread; for prlimit64, the process); a call naming the
   calling thread by id is made again by the trap handler. Reading them stays allowed. */
static int add_self_only_rules(scmp_filter_ctx filter) {
    static const char *const first_names_target[] = {"prlimit64", "sched_setaffinity", "sched_setscheduler",
                                                     "sched_setparam", "sched_setattr"};
    int result = 0;
    struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, 0);
    for (size_t i = 0; result == 0 && i < sizeof first_names_target / sizeof *first_names_target; i++) {
        result = trap(filter, first_names_target[i], 1, &other);
    }
    /* setpriority and ioprio_set name a kind (a process, a group, a user), then an id. */
    struct scmp_arg_cmp not_self = SCMP_A1(SCMP_CMP_NE, 0);
    struct scmp_arg_cmp not_a_process = SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS);
    struct scmp_arg_cmp not_an_io_process = SCMP_A0(SCMP_CMP_NE, IOPRIO_WHO_PROCESS);
    if (result == 0) result = trap(filter, "setpriority", 1, &not_a_process);
    if (result == 0) result = trap(filter, "setpriority", 1, &not_self);
    if (result == 0) result = trap(filter, "ioprio_set", 1, &not_an_io_process);
    if (result == 0) result = trap(filter, "ioprio_set", 1, &not_self);
    return result;
}

/* Unix sockets: path sockets are out of Landlock's reach before its ABI 9, so none is made. The
   system log's datagram socket is refused quietly (libdispatch logs there); other types are reported. */
static int add_unix_rules(scmp_filter_ctx filter) {
    int result = 0;
    for (int type = 0; type < 16; type++) {
        struct scmp_arg_cmp unix_type[2] = {SCMP_A0(SCMP_CMP_EQ, AF_UNIX), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xF, (scmp_datum_t)type)};
        if (type == SOCK_DGRAM) {
            result |= seccomp_rule_add_array(filter, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 2, unix_type);
        } else {
            result |= trap(filter, "socket", 2, unix_type);
        }
    }
    struct scmp_arg_cmp unspecified = SCMP_A0(SCMP_CMP_EQ, AF_UNSPEC);
    return result | trap(filter, "socket", 1, &unspecified);
}

/* The socket() calls a worker may make: none, or with TCP ports granted, TCP over IPv4 and IPv6
   (Landlock confines its ports; UDP, raw, SCTP and MPTCP it cannot see, so they are refused). */
static int add_socket_rules(scmp_filter_ctx filter, const pbs_rules_t *rules) {
    if (rules->network_all) return 0;
    int result = add_unix_rules(filter);
    int tcp_granted = rules->landlock_abi >= PBS_LANDLOCK_TCP && (rules->connect_count || rules->bind_count);
    if (!tcp_granted) {
        struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_GT, AF_UNIX);
        return result | trap(filter, "socket", 1, &other);
    }
    struct scmp_arg_cmp above_inet6 = SCMP_A0(SCMP_CMP_GT, AF_INET6);
    result |= trap(filter, "socket", 1, &above_inet6);
    for (int domain = AF_INET + 1; domain < AF_INET6; domain++) {
        struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)domain);
        result |= trap(filter, "socket", 1, &other);
    }
    static const int domains[] = {AF_INET, AF_INET6};
    for (int d = 0; d < 2; d++) {
        for (int type = 0; type < 16; type++) {
            if (type == SOCK_STREAM) continue;
            struct scmp_arg_cmp pair[2] = {SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)domains[d]),
                                           SCMP_A1(SCMP_CMP_MASKED_EQ, 0xF, (scmp_datum_t)type)};
            result |= trap(filter, "socket", 2, pair);
        }
        struct scmp_arg_cmp other_protocol[2] = {SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)domains[d]),
                                                 SCMP_A2(SCMP_CMP_GT, IPPROTO_TCP)};
        result |= trap(filter, "socket", 2, other_protocol);
        for (int protocol = 1; protocol < IPPROTO_TCP; protocol++) {
            struct scmp_arg_cmp small[2] = {SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)domains[d]),
                                            SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)protocol)};
            result |= trap(filter, "socket", 2, small);
        }
    }
    return result;
}

/* The filter `rules` ask for, built with libseccomp; NULL with a sentence in `error` when it cannot be. */
static scmp_filter_ctx build_filter(const pbs_rules_t *rules, char *error, size_t size) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) {
        fail(error, size, 0, "cannot create the seccomp filter");
        return NULL;
    }
    int result = 0;
    for (size_t i = 0; result == 0 && i < sizeof refused_calls / sizeof *refused_calls; i++) {
        result = trap(filter, refused_calls[i], 0, NULL);
    }
    for (size_t i = 0; result == 0 && i < sizeof namespace_flags / sizeof *namespace_flags; i++) {
        struct scmp_arg_cmp flag = SCMP_A0(SCMP_CMP_MASKED_EQ, namespace_flags[i], namespace_flags[i]);
        result = trap(filter, "clone", 1, &flag);
    }
    /* clone3 passes its flags in memory, where a filter cannot look: ENOSYS makes the C library use clone. */
    if (result == 0) result = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* The worker's death signal, set before the sandbox, kills it with the host: changed, a worker
       busy in a callback would outlive a host killed with SIGKILL. Made dumpable again, it could be
       traced and its memory read by the user's other processes. prctl's option is an int: only
       its low 32 bits are compared, as the kernel reads them. */
    static const unsigned long process_settings[] = {PBS_PR_SET_PDEATHSIG, PBS_PR_SET_DUMPABLE};
    for (size_t i = 0; result == 0 && i < sizeof process_settings / sizeof *process_settings; i++) {
        struct scmp_arg_cmp option = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, process_settings[i]);
        result = trap(filter, "prctl", 1, &option);
    }
    /* A real uid of 0 again: the kernel never limits its threads (see count_apart). uid_t is 32 bits:
       only the low 32 bits are compared, as the kernel reads them. */
    static const char *const real_uid_setters[] = {"setreuid", "setresuid", "setreuid32", "setresuid32"};
    for (size_t i = 0; result == 0 && i < sizeof real_uid_setters / sizeof *real_uid_setters; i++) {
        struct scmp_arg_cmp root = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, 0);
        result = trap(filter, real_uid_setters[i], 1, &root);
    }
    /* Typing into the terminal of the host's session (CVE-2017-5226) and its console. */
    static const unsigned long terminal_requests[] = {TIOCSTI, TIOCLINUX};
    for (size_t i = 0; result == 0 && i < 2; i++) {
        struct scmp_arg_cmp request = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, terminal_requests[i]);
        result = trap(filter, "ioctl", 1, &request);
    }
    if (result == 0 && rules->execute_count == 0) {
        /* Without programs to run, no process either: only threads (a child would outlive the
           worker when the host dies, as only the worker is killed with it). */
        struct scmp_arg_cmp not_a_thread = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
        result = trap(filter, "execve", 0, NULL);
        if (result == 0) result = trap(filter, "clone", 1, &not_a_thread);
        if (result == 0) result = trap(filter, "fork", 0, NULL);
        if (result == 0) result = trap(filter, "vfork", 0, NULL);
    }
    /* Unix socket pairs for the worker's own use only: a datagram pair could send to path sockets. */
    for (int type = 0; result == 0 && type < 16; type++) {
        if (type == SOCK_STREAM) continue;
        struct scmp_arg_cmp pair_type = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xF, (scmp_datum_t)type);
        result = trap(filter, "socketpair", 1, &pair_type);
    }
    if (result == 0) {
        struct scmp_arg_cmp not_unix = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
        result = trap(filter, "socketpair", 1, &not_unix);
    }
    if (result == 0) result = add_self_only_rules(filter);
    if (result == 0) result = add_socket_rules(filter, rules);
    if (result != 0) {
        seccomp_release(filter);
        fail(error, size, -result, "cannot build the seccomp filter");
        return NULL;
    }
    return filter;
}

long pbs_filter_compile(const pbs_rules_t *rules, void *buffer, size_t capacity, char *error, size_t size) {
    scmp_filter_ctx filter = build_filter(rules, error, size);
    if (!filter) return -1;
    int fd = memfd_create("plugboard-seccomp-filter", MFD_CLOEXEC);
    int exported = fd < 0 ? -errno : seccomp_export_bpf(filter, fd);
    seccomp_release(filter);
    if (exported != 0) {
        if (fd >= 0) close(fd);
        return fail(error, size, -exported, "cannot export the seccomp filter");
    }
    ssize_t length = pread(fd, buffer, capacity, 0);
    struct stat status;
    int whole = fstat(fd, &status) == 0 && status.st_size == length;
    close(fd);
    if (length <= 0 || !whole) return fail(error, size, 0, "the seccomp filter does not fit in %zu bytes", capacity);
    return (long)length;
}

/* Installs the SIGSYS handler that reports and answers refused calls, then the filter: the
   compiled one in `rules`, or one built here. */
static int apply_seccomp(const pbs_rules_t *rules, char *error, size_t size) {
    report_descriptor = rules->report_fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_refused_call;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, NULL) != 0) return fail(error, size, errno, "cannot install the SIGSYS handler");
    sigset_t sys;
    sigemptyset(&sys);
    sigaddset(&sys, SIGSYS);
    pthread_sigmask(SIG_UNBLOCK, &sys, NULL);

    if (rules->filter) {
        if (rules->filter_size == 0 || rules->filter_size % sizeof(struct sock_filter) != 0 ||
            rules->filter_size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
            return fail(error, size, 0, "the compiled seccomp filter has %zu bytes, not a whole BPF program", rules->filter_size);
        }
        struct sock_fprog program = {.len = (unsigned short)(rules->filter_size / sizeof(struct sock_filter)),
                                     .filter = (struct sock_filter *)rules->filter};
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) {
            return fail(error, size, errno, "cannot install the seccomp filter");
        }
        return 0;
    }
    scmp_filter_ctx filter = build_filter(rules, error, size);
    if (!filter) return -1;
    int result = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    if (result == 0) result = seccomp_load(filter);
    seccomp_release(filter);
    if (result != 0) return fail(error, size, -result, "cannot install the seccomp filter");
    return 0;
}

const char *pbs_call_name(int32_t call) {
    static __thread char name[64];
    char *resolved = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, call);
    if (!resolved) return NULL;
    copy_text(name, sizeof name, resolved);
    free(resolved);
    return name;
}

/* ---- The process-group guard ----------------------------------------------------------------- */

/* Waits until the process `watch` (a pidfd) ends, then kills the process group `group`, itself with it.
   Every signal that can be ignored is: when the host dies, the group is orphaned, and the kernel
   sends it SIGHUP and SIGCONT if one of its processes is stopped (a plugin's child can stop itself). */
static void guard_group(int watch, pid_t group) {
    if (watch > 0) dup2(watch, 0);
    close_from(1);
    for (int signal_number = 1; signal_number < NSIG; signal_number++) signal(signal_number, SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct pollfd end = {.fd = 0, .events = POLLIN};
    while (poll(&end, 1, -1) < 0 && errno == EINTR) {}
    kill(-group, SIGKILL);
    _exit(0);
}

/* With programs to run (or without seccomp, which refuses a process otherwise), a plugin may start
   processes, and the kernel's death signal, which ends the worker with its host, is not inherited:
   a process it started would outlive a host killed with SIGKILL. Such processes cannot leave the
   worker's process group (setsid and setpgid are refused), so a guard started here, before Landlock
   and seccomp, waits for the worker's end and then kills the whole group. The guard is not the
   worker's child (a plugin that waits for all of its children never waits for it), and Landlock's
   signal scope (ABI 6) keeps the sandbox from signalling it. A kernel without pidfd_open (before
   Linux 5.3), or a container that refuses it, gets no guard: the host has said so, as of a missing
   layer (`--sandbox strict` starts no worker there), and the worker serves without one. */
static int start_group_guard(char *error, size_t size) {
    pid_t worker = getpid();
    if (getpgrp() != worker) {
        return fail(error, size, 0, "the worker does not lead a process group of its own, so the processes its "
                                    "plugins start could not be ended with it");
    }
    int watch = (int)syscall(SYS_pidfd_open, worker, 0);
    if (watch < 0 && (errno == ENOSYS || errno == EPERM)) return 0;
    if (watch < 0) return fail(error, size, errno, "cannot watch the worker's end for its process-group guard (pidfd_open)");
    pid_t starter = fork();
    if (starter == 0) {
        pid_t guard = fork();
        if (guard == 0) guard_group(watch, worker);
        _exit(guard < 0 ? 1 : 0);
    }
    int saved = errno;
    close(watch);
    if (starter < 0) return fail(error, size, saved, "cannot start the process-group guard");
    int status = 0;
    while (waitpid(starter, &status, 0) < 0) {
        if (errno != EINTR) return fail(error, size, errno, "cannot wait for the process-group guard to start");
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fail(error, size, 0, "cannot start the process-group guard");
    return 0;
}

/* ---- All of it ------------------------------------------------------------------------------- */

/* Says on standard error (the host shows it as the library's output) that the worker serves without
   its thread limit, and why. */
static void no_thread_limit(const char *why, int saved_errno) {
    dprintf(STDERR_FILENO, "plugboard-worker: sandbox: no thread limit: %s%s%s\n", why, saved_errno ? ": " : "",
            saved_errno ? strerror(saved_errno) : "");
}

int pbs_apply(const pbs_rules_t *rules, char *error, size_t size) {
    int threads = thread_count();
    if (threads != 1) {
        return fail(error, size, 0, threads < 0 ? "cannot count the worker's threads (/proc/self/task)"
                                                : "the worker has %d threads; the sandbox needs it to have one", threads);
    }
    int keep = rules->report_fd > 3 ? rules->report_fd : 3;
    if (rules->last_kept_fd > keep) keep = rules->last_kept_fd;
    if (close_from(keep + 1) != 0) return fail(error, size, errno, "cannot close the inherited descriptors");
    /* A plugin that floods denials loses reports, never blocks; programs it may run do not inherit the pipe. */
    if (rules->report_fd >= 0 && (fcntl(rules->report_fd, F_SETFL, O_NONBLOCK) != 0 ||
                                  fcntl(rules->report_fd, F_SETFD, FD_CLOEXEC) != 0)) {
        return fail(error, size, errno, "cannot prepare the report descriptor %d", rules->report_fd);
    }
    if (limit(RLIMIT_CORE, 0) != 0) return fail(error, size, errno, "cannot turn core dumps off");
    if (rules->open_files && limit(RLIMIT_NOFILE, rules->open_files) != 0) {
        return fail(error, size, errno, "cannot limit open files to %llu", (unsigned long long)rules->open_files);
    }
    if (rules->memory_bytes && limit(RLIMIT_DATA, rules->memory_bytes) != 0) {
        return fail(error, size, errno, "cannot limit memory to %llu bytes", (unsigned long long)rules->memory_bytes);
    }
    if (rules->cpu_seconds && limit(RLIMIT_CPU, rules->cpu_seconds) != 0) {
        return fail(error, size, errno, "cannot limit CPU time to %llu s", (unsigned long long)rules->cpu_seconds);
    }
    /* The thread limit: made now (the worker must still be dumpable and hold CAP_SETUID), checked once
       the capabilities are dropped. Without `threads_required`, a worker the kernel cannot count
       apart goes on without it and says so, as long as nothing was changed. */
    int limited = 0;
    if (rules->threads) {
        pbs_counted_t counted = count_apart();
        if (counted == PBS_COUNTED_APART) {
            if (limit(RLIMIT_NPROC, rules->threads) != 0) {
                return fail(error, size, errno, "cannot limit threads to %llu", (unsigned long long)rules->threads);
            }
            limited = 1;
        } else if (rules->threads_required || counted == PBS_PARTLY_CHANGED) {
            return fail(error, size, errno, "cannot count the worker's threads apart for its thread limit");
        } else {
            no_thread_limit("its threads cannot be counted apart from its user's", errno);
        }
    }
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return fail(error, size, errno, "cannot make the worker undumpable");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(error, size, errno, "cannot set no_new_privs");
    if (drop_capabilities(error, size) != 0) return -1;
    if (limited && !limit_holds()) {
        const char *why = "the kernel does not hold it to the limit (its real user id is exempt)";
        if (rules->threads_required) return fail(error, size, 0, "no thread limit: %s", why);
        no_thread_limit(why, 0);
    }
    if ((rules->execute_count > 0 || !rules->seccomp) && start_group_guard(error, size) != 0) return -1;
    if (rules->landlock_abi >= PBS_LANDLOCK_FILES && apply_landlock(rules, error, size) != 0) return -1;
    if (rules->seccomp && apply_seccomp(rules, error, size) != 0) return -1;
    return 0;
}
