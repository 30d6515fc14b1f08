/*
 * A plugin that misbehaves on purpose, for the hostile-plugin tests. Each
 * misbehaviour is chosen at compile time with `-D<ACTION>_AT=<place>`, so one
 * library can, say, ignore SIGTERM in `init` and spin in `open_url`. The file
 * compiles as C11 and, for THROW_AT, as C++17 (`-x c++`).
 *
 * Places:   AT_ENTRY (plugboard_entry), AT_INIT, AT_REGISTER, AT_WILL_FINISH
 *           (will_finish_launching), AT_OPEN_URL, AT_TERMINATE (will_terminate),
 *           AT_DEINIT, AT_ATEXIT (an atexit handler registered in init),
 *           AT_SAVE_STATE (save_state), AT_RESTORE_STATE (restore_state): both
 *           only with SAVED_STATE; AT_CONSTRUCTOR (a constructor, while the host's
 *           dlopen runs: SEGV_AT, ABORT_AT and SPIN_AT only, no host yet).
 * Actions:  SEGV_AT (NULL write), ABORT_AT, THROW_AT (C++ exception), EXIT_AT
 *           (exit(0)), QUICK_EXIT_AT (_exit(0)), SPIN_AT (loops forever),
 *           PRINT_AT (garbage on fd 1 through stdio and write), CLOSE_STDIO_AT
 *           (closes fd 1 and 2), IGNORE_SIGNALS_AT (SIGINT/SIGTERM to SIG_IGN),
 *           BLOCK_SIGNALS_AT (blocks them in the calling thread),
 *           HANDLE_SIGNALS_AT (installs a handler that does nothing),
 *           CHDIR_AT (chdir("/")), LOG_AT (logs HOSTILE_MESSAGE), HUGE_LOG_AT (logs
 *           70 MiB of "x", more than one message to a host carries),
 *           RAISE_SIGTERM_AT (raise(SIGTERM): the host's own signal, mid-callback),
 *           FAIL_AT (AT_INIT or AT_REGISTER only: that function returns false),
 *           LOG_THREAD_AT (starts a thread that logs HOSTILE_MESSAGE every
 *           millisecond for 5 s, then ends), FILES_AT (writes
 *           "tmp/hostile-files-call.txt" through the files service),
 *           FILES_THREAD_AT (starts a thread that writes
 *           "Documents/from-thread.txt" through the files service, reads it back
 *           and logs "files from a thread: STATUS TEXT"),
 *           FORK_AT (forks a child that sleeps 60 s holding the
 *           plugin's standard output and error, then exits; with FORK_STOPS, the
 *           child first ignores SIGHUP and stops itself: orphaned, its process group
 *           then gets SIGHUP and SIGCONT from the kernel),
 *           NEIGHBOURS_AT (asks whether it may signal each of the 64 process ids after
 *           its own, its threads and its child from FORK_AT aside, with signal 0, and logs "neighbours it may
 *           signal: N": a worker's own helpers are out of its reach),
 *           COMPLETE_AT (answers the last remote notification's completion
 *           handle again; with it, the plugin takes part in remote
 *           notifications, answering PB_FETCH_NEW_DATA at once, and with
 *           LOG_BEFORE_COMPLETING logs "answering at once" just before),
 *           SHARE_FILE_AT (makes its own library file writable by others,
 *           before any other action at that place: a file the trust rule refuses).
 *           FORGE_BYE_AT (writes a worker-protocol `bye` frame with request id 2,
 *           the host's `load`, on fd 3, the worker's channel: a reply out of turn).
 *           STEAL_CHANNEL_AT (starts a thread that, 200 ms later, once the callback's
 *           answer is sent, takes the worker's channel, fd 3, and its concurrent
 *           channel, fd 5, from the worker, which reads and writes idle sockets
 *           instead, and sends the host two `check-invoke` requests naming a 1 MiB
 *           function, whose refusals repeat the name: replies the host cannot
 *           deliver, as nothing reads the socket they go to).
 *           MUTE_CHANNEL_AT (starts a thread that, 200 ms later, takes the worker's
 *           channel, fd 3, from the worker, which reads an idle socket instead; the
 *           channel stays open, and nothing reads what the host sends on it).
 *           FORGE_DENIAL_AT (writes a sandbox denial record on fd 4, where a confined
 *           worker reports them, as the worker writes one: ptrace refused to the plugin
 *           HOSTILE_FORGED_WHO, default "com.example.victim", in open_url).
 *           ONCE_AT (AT_INIT or AT_REGISTER only: that function fails, logging
 *           "already initialized", from its second call in a process on: a static
 *           flag deinit never resets, so init after deinit fails),
 *           ABORT_ON_INNER_NUL_AT (AT_OPEN_URL only: aborts when the URL holds a NUL
 *           before its length, as a plugin that trusts both strlen and the length would),
 *           THREAD_LOGS_AT (starts a thread that logs "from my thread", and asks
 *           the files service, when offered, whether "Documents" exists, at once,
 *           waited for, then every 10 ms until deinit, which stops it and joins
 *           it: a well-behaved thread), STRAY_THREAD_AT (starts a thread that logs "from my thread"
 *           every 10 ms and never stops: it calls the host after deinit).
 *           DENIED_LOOP_AT (calls the files service (write) and invoke (HOSTILE_INVOKE)
 *           1000 times each, as a plugin retrying a denied service would, then logs
 *           "denied loop: files STATUS invoke STATUS", the last statuses),
 *           LATE_SEGV_AT (starts a thread that sleeps 300 ms, then writes to NULL:
 *           a crash that comes while the host is busy with something else),
 *           SLEEP_AT (sleeps 1 s, then goes on),
 *           THREAD_BOMB_AT (starts threads that never end, with small stacks, until the
 *           kernel refuses one or THREAD_BOMB_MAX (default 4096) run, then logs
 *           "bomb: N threads started, then EAGAIN" (the errno's name) or "bomb: N threads started"),
 *           OUTLIVE_HOST_AT (clears its process's death signal, which kills a worker with
 *           its host, and logs "worker PID: death signal cleared", or "kept" when refused),
 *           RESCHEDULE_AT (sets the host's limits, nice value, CPU affinity, scheduling policy
 *           and I/O priority to what they are, then its own calling thread's, named by its id,
 *           and logs "reschedule host: limits R, nice R, affinity R, scheduler R, io R" and
 *           "reschedule self: …", each R "ok" or the errno's name),
 *           CONFINED_LOG_AT (starts a thread that logs "from a plugin thread", joins
 *           it, then logs "after the thread joined" on the calling thread: without
 *           thread confinement the thread's line comes first),
 *           CONFINED_FLOOD_AT (starts a thread that logs "flood N" 25,000 times, N from 1,
 *           joins it, then logs "after the flood": more lines than thread confinement
 *           keeps waiting for the dispatch thread).
 *           NULL_STATE_AT (AT_SAVE_STATE only: save_state returns PB_OK with
 *           NULL data and a size of 100), HUGE_STATE_AT (AT_SAVE_STATE only:
 *           save_state returns PB_OK with a size of PB_SAVED_STATE_MAX_SIZE + 1
 *           over a 1-byte buffer: the host must refuse it without reading),
 *           TRUSTING_RESTORE_AT (AT_RESTORE_STATE only: restore_state aborts when
 *           the state is not the text it saves, as a plugin asserting its own format would).
 *           Notification bus (at an event's place: the bus serves from the first event on):
 *           OBSERVE_SEGV_AT (observes "com.example.boom" with an observer that writes
 *           to NULL, and posts it), OBSERVE_SPIN_AT (the same with an observer that
 *           loops forever), POST_LOOP_AT (observes "com.example.loop" with an observer
 *           that posts it again, and posts it: a loop only the depth limit ends;
 *           with OBSERVER_SLEEP_MS=N the observer sleeps N ms first),
 *           THREAD_POST_LOOP_AT (the same, but the observer posts from a thread it
 *           starts and joins: a post during a delivery from another thread),
 *           STRAY_POST_THREAD_AT (starts a thread that posts "com.example.stray" every
 *           10 ms, or STRAY_POST_INTERVAL_NS, and never stops: it posts after deinit), BAD_BUS_CALLS_AT (calls the
 *           bus wrongly: a malformed name, a payload that is not an object, one that is
 *           not UTF-8, a NULL and
 *           an unknown plugin id, a NULL callback, a NULL token pointer, an unknown
 *           token; logs "bus CALL: STATUS" for each; with BAD_BUS_REPEAT=N, then posts the
 *           malformed name N times more and logs "bad posts repeated"; with BAD_STOPS_FIRST=N,
 *           first ends the unknown token N times, unlogged), FORGE_POST_AT (writes a worker-protocol
 *           `post` frame for the name "no dots" on fd 3, the worker's channel, past the
 *           worker's own checks: the host must check it again), LOUD_POSTS_AT (observes
 *           "com.example.loud", its observer logging "received NAME PAYLOAD from SENDER",
 *           then posts it 100 times, as a plugin retrying a denied post would, and logs
 *           "loud posts: observe STATUS post STATUS", the observe's and the last post's),
 *           FORGE_SENDER_AT (writes a valid `post` frame of "com.example.forged" on
 *           behalf of "com.example.victim", a plugin of another library, on fd 3),
 *           FORGE_LOG_AT (writes a valid `log` frame on fd 3 naming "org.plugboard.files",
 *           the host's built-in plugin: an error "forged", past the worker's own check),
 *           FLOOD_FRAMES_AT (writes valid `log` frames of its own, trace "flood", on fd 3 in
 *           batches of 64 KiB until the channel breaks: faster than the host can handle them),
 *           OBSERVE_FRAGILE_AT (observes "com.example.fragile" with an observer that
 *           aborts on a payload of more than 4096 bytes, as one copying it into a
 *           fixed buffer would; posts nothing).
 * Threads:  COMPLETE_FROM_THREAD_MS=N (the plugin takes part in remote notifications and
 *           answers each from a thread of its own, N ms after the callback, logging
 *           "completing from a thread" first: an answer after the deadline when N is
 *           larger than it).
 * Saved state: SAVED_STATE makes the plugin take part in saved state: it
 *           saves the text HOSTILE_STATE (default "hostile state"), and its
 *           restore_state logs "restored: <the text>"; each runs the
 *           misbehaviours of its place first.
 * Identity: HOSTILE_ID (default "com.example.hostile"), HOSTILE_NAME,
 *           HOSTILE_VERSION, HOSTILE_PRIORITY. With ID_FROM_ENVIRONMENT, the plugin
 *           registers the id in $HOSTILE_ID_NOW instead, when it is set: the same
 *           file registering another id in another process (a restarted worker).
 * Marker:   LOAD_MARKER "path" (a constructor appends the line "loaded PID" to
 *           that file each time the library is loaded, before any of its functions
 *           runs: a test counts the dlopens, e.g. none on a scan cache hit, and the
 *           processes that made them).
 *
 * Every callback that runs logs its event name first, so a test sees how far
 * the plugin got; it answers true to launch and open_url.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <plugboard.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AT_ENTRY 1
#define AT_INIT 2
#define AT_REGISTER 3
#define AT_WILL_FINISH 4
#define AT_OPEN_URL 5
#define AT_TERMINATE 6
#define AT_DEINIT 7
#define AT_ATEXIT 8
#define AT_SAVE_STATE 9
#define AT_RESTORE_STATE 10
#define AT_CONSTRUCTOR 11

#ifndef HOSTILE_ID
#define HOSTILE_ID "com.example.hostile"
#endif
#ifndef HOSTILE_NAME
#define HOSTILE_NAME "Hostile"
#endif
#ifndef HOSTILE_VERSION
#define HOSTILE_VERSION "1.0"
#endif
#ifndef HOSTILE_PRIORITY
#define HOSTILE_PRIORITY 0
#endif
#ifndef HOSTILE_MESSAGE
#define HOSTILE_MESSAGE "hostile message"
#endif

static const pb_host_t *host;

/* Starts `body(argument)` on a thread of its own that nobody joins. */
__attribute__((unused)) static void detach_thread(void *(*body)(void *), void *argument) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, body, argument) == 0) pthread_detach(thread);
}

static void say(const char *event) {
    if (host) host->log(host, HOSTILE_ID, PB_LOG_INFO, event);
}

/* Runs `body` on a thread of its own and joins it, then says `after` on the calling thread. */
__attribute__((unused)) static void join_thread_then_say(void *(*body)(void *), const char *after) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, body, NULL) == 0) pthread_join(thread, NULL);
    say(after);
}

__attribute__((unused)) static void do_nothing(int signal) { (void)signal; }

#ifdef RESCHEDULE_AT
/* "ok" for a call that returned 0, else its errno's name. */
static const char *outcome(long result) {
    if (result == 0) return "ok";
    return errno == EPERM ? "EPERM" : errno == EACCES ? "EACCES" : errno == ESRCH ? "ESRCH" : "other";
}

/* Sets `target`'s limits, nice value, CPU affinity, scheduling policy and I/O priority to what they
 * are (harmless when allowed), and logs "reschedule WHO: limits R, nice R, affinity R, scheduler R, io R". */
static void reschedule(const char *who, pid_t target) {
    struct rlimit limits = {0};
    long result = prlimit(target, RLIMIT_NOFILE, NULL, &limits);
    const char *limit = result == 0 ? outcome(prlimit(target, RLIMIT_NOFILE, &limits, NULL)) : outcome(result);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)target);
    const char *niceness = outcome(setpriority(PRIO_PROCESS, (id_t)target, nice));
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    result = sched_getaffinity(target, sizeof cpus, &cpus);
    const char *affinity = result == 0 ? outcome(sched_setaffinity(target, sizeof cpus, &cpus)) : outcome(result);
    struct sched_param parameters = {0};
    int policy = sched_getscheduler(target);
    result = policy < 0 ? -1 : sched_getparam(target, &parameters);
    const char *scheduler = result == 0 ? outcome(sched_setscheduler(target, policy, &parameters)) : outcome(result);
    long io = syscall(SYS_ioprio_get, 1, target);
    const char *priority = io < 0 ? outcome(io) : outcome(syscall(SYS_ioprio_set, 1, target, io));
    char line[160];
    snprintf(line, sizeof line, "reschedule %s: limits %s, nice %s, affinity %s, scheduler %s, io %s",
             who, limit, niceness, affinity, scheduler, priority);
    say(line);
}
#endif

/* Zero, but not known to be zero by the compiler, which would drop a NULL write as undefined. */
__attribute__((unused)) static volatile uintptr_t null_address;

#ifdef LOG_THREAD_AT
static void *keep_logging(void *unused) {
    (void)unused;
    const pb_host_t *kept = host;
    const struct timespec millisecond = {0, 1000000};
    for (int turn = 0; turn < 5000; turn++) {
        kept->log(kept, HOSTILE_ID, PB_LOG_INFO, HOSTILE_MESSAGE);
        nanosleep(&millisecond, NULL);
    }
    return NULL;
}
#endif

#ifdef FILES_THREAD_AT
static void *use_files(void *unused) {
    (void)unused;
    const pb_host_t *kept = host;
    pb_status_t status = kept->files->write(kept, "Documents/from-thread.txt", "threaded", 8, PB_FILES_OVERWRITE);
    pb_buffer_t read_back = {NULL, 0};
    if (status == PB_OK) status = kept->files->read(kept, "Documents/from-thread.txt", &read_back);
    char line[128];
    snprintf(line, sizeof line, "files from a thread: %d %s", (int)status, read_back.data ? (const char *)read_back.data : "");
    kept->files->free_buffer(kept, &read_back);
    kept->log(kept, HOSTILE_ID, PB_LOG_INFO, line);
    return NULL;
}
#endif

#ifdef COMPLETE_AT
static const pb_fetch_completion_t *last_completion;
#endif

#ifdef ABORT_ON_INNER_NUL_AT
/* The text open_url got, for the place that checks it. */
static const char *given_text;
static size_t given_length;
#endif

#ifdef THREAD_LOGS_AT
static pthread_t logging_thread;
static bool logging_started;
#endif

#if defined(THREAD_LOGS_AT) || defined(STRAY_THREAD_AT)
static bool stop_logging;
static bool logged_once;

static void *log_every_10_ms(void *unused) {
    (void)unused;
    const pb_host_t *kept = host;
    const struct timespec ten_milliseconds = {0, 10000000};
    while (!__atomic_load_n(&stop_logging, __ATOMIC_ACQUIRE)) {
        kept->log(kept, HOSTILE_ID, PB_LOG_INFO, "from my thread");
#ifdef THREAD_LOGS_AT
        bool exists = false;
        if (kept->files) kept->files->exists(kept, "Documents", &exists);
#endif
        __atomic_store_n(&logged_once, true, __ATOMIC_RELEASE);
        nanosleep(&ten_milliseconds, NULL);
    }
    return NULL;
}
#endif

#ifdef CONFINED_LOG_AT
static void *log_from_a_thread(void *unused) {
    (void)unused;
    host->log(host, HOSTILE_ID, PB_LOG_INFO, "from a plugin thread");
    return NULL;
}
#endif

#ifdef CONFINED_FLOOD_AT
static void *flood_from_a_thread(void *unused) {
    (void)unused;
    char line[32];
    for (int i = 1; i <= 25000; i++) {
        snprintf(line, sizeof line, "flood %d", i);
        host->log(host, HOSTILE_ID, PB_LOG_INFO, line);
    }
    return NULL;
}
#endif

#ifdef LATE_SEGV_AT
static void *crash_later(void *unused) {
    (void)unused;
    const struct timespec delay = {0, 300000000};
    nanosleep(&delay, NULL);
    *(volatile int *)null_address = 1;
    return NULL;
}
#endif

#if defined(OBSERVE_SEGV_AT) || defined(OBSERVE_SPIN_AT)
static void observe_badly(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)name; (void)payload; (void)sender;
    say("observer called");
#ifdef OBSERVE_SEGV_AT
    *(volatile int *)null_address = 1;
#else
    for (;;) pause();
#endif
}
#endif

#ifdef POST_LOOP_AT
static void post_again(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)payload; (void)sender;
#ifdef OBSERVER_SLEEP_MS
    const struct timespec pause = {OBSERVER_SLEEP_MS / 1000, (OBSERVER_SLEEP_MS % 1000) * 1000000L};
    nanosleep(&pause, NULL);
#endif
    host->notifications->post(host, HOSTILE_ID, name, "{}");
}
#endif

#ifdef THREAD_POST_LOOP_AT
static void *post_loop_once(void *name) {
    host->notifications->post(host, HOSTILE_ID, (const char *)name, "{}");
    return NULL;
}

static void post_again_from_a_thread(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)payload; (void)sender;
    pthread_t thread;
    if (pthread_create(&thread, NULL, post_loop_once, (void *)name) == 0) pthread_join(thread, NULL);
}
#endif

#ifdef STRAY_POST_THREAD_AT
#ifndef STRAY_POST_INTERVAL_NS
#define STRAY_POST_INTERVAL_NS 10000000
#endif
static void *post_every_10_ms(void *unused) {
    (void)unused;
    const pb_host_t *kept = host;
    const struct timespec interval = {0, STRAY_POST_INTERVAL_NS};
    for (;;) {
        kept->notifications->post(kept, HOSTILE_ID, "com.example.stray", "{}");
        nanosleep(&interval, NULL);
    }
    return NULL;
}
#endif

#ifdef LOUD_POSTS_AT
static void loud_received(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx;
    char line[512];
    snprintf(line, sizeof line, "received %s %s from %s", name, payload, sender);
    say(line);
}
#endif

#ifdef BAD_BUS_CALLS_AT
static void nothing_observed(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)name; (void)payload; (void)sender;
}

static void report_bus(const char *call, pb_status_t status) {
    char line[128];
    snprintf(line, sizeof line, "bus %s: %d", call, (int)status);
    say(line);
}
#endif

#ifdef OBSERVE_FRAGILE_AT
static void observe_fragile(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)name; (void)sender;
    char copy[4096];
    if (strlen(payload) >= sizeof copy) abort();
    strcpy(copy, payload);
}
#endif

#ifdef STEAL_CHANNEL_AT
/* See STEAL_CHANNEL_AT: fds 3 and 5 become ends of idle socket pairs; the channel is kept as
   `keep`, written to and never read, and the concurrent channel is left unread. */
static void *steal_channel(void *unused) {
    (void)unused;
    const struct timespec wait = {0, 200 * 1000000L};
    nanosleep(&wait, NULL);
    int keep = dup(3), unread = dup(5);
    int idle[2], idle_concurrent[2];
    if (keep < 0 || unread < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, idle) != 0 || dup2(idle[0], 3) < 0 ||
        socketpair(AF_UNIX, SOCK_STREAM, 0, idle_concurrent) != 0 || dup2(idle_concurrent[0], 5) < 0) return NULL;
    enum { NAME = 1 << 20 };
    static unsigned char frame[4 + 1 + 8 + 4 + NAME + 4];
    uint32_t payload = sizeof frame - 4;
    for (int byte = 0; byte < 4; byte++) frame[byte] = (unsigned char)(payload >> (8 * byte));
    frame[4] = 0x91;                                   /* check-invoke */
    frame[13] = (unsigned char)(NAME & 0xFF);          /* the name's length, little-endian */
    frame[14] = (unsigned char)((NAME >> 8) & 0xFF);
    frame[15] = (unsigned char)((NAME >> 16) & 0xFF);
    memset(frame + 17, 'n', NAME);                     /* then an empty argument list (zeros) */
    for (unsigned char id = 1; id <= 2; id++) {
        frame[5] = id;                                  /* the request id */
        for (size_t sent = 0; sent < sizeof frame;) {
            ssize_t count = write(keep, frame + sent, sizeof frame - sent);
            if (count <= 0) return NULL;
            sent += (size_t)count;
        }
    }
    return NULL;
}
#endif

#ifdef MUTE_CHANNEL_AT
/* See MUTE_CHANNEL_AT: fd 3 becomes an end of an idle socket pair; the channel is kept open, unread. */
static void *mute_channel(void *unused) {
    (void)unused;
    const struct timespec wait = {0, 200 * 1000000L};
    nanosleep(&wait, NULL);
    int idle[2];
    if (dup(3) < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, idle) != 0) return NULL;
    dup2(idle[0], 3);
    return NULL;
}
#endif

#ifdef FORGE_DENIAL_AT
#ifndef HOSTILE_FORGED_WHO
#define HOSTILE_FORGED_WHO "com.example.victim"
#endif
/* See FORGE_DENIAL_AT: the record's layout is the worker's (pbs_denial_t). */
static void forge_denial(void) {
    struct {
        int32_t call;
        uint64_t arguments[3];
        char who[96];
        char callback[32];
    } record;
    memset(&record, 0, sizeof record);
    record.call = SYS_ptrace;
    strncpy(record.who, HOSTILE_FORGED_WHO, sizeof record.who - 1);
    strncpy(record.callback, "open_url", sizeof record.callback - 1);
    if (write(4, &record, sizeof record) != (ssize_t)sizeof record) return;
}
#endif

#if defined(FORK_AT) || defined(NEIGHBOURS_AT)
/* The child FORK_AT started, if any. */
static pid_t forked_child = -1;
#endif

#ifdef THREAD_BOMB_AT
#ifndef THREAD_BOMB_MAX
#define THREAD_BOMB_MAX 4096
#endif
static void *sleep_forever(void *unused) {
    (void)unused;
    for (;;) pause();
    return NULL;
}

/* Starts threads that never end until one is refused or THREAD_BOMB_MAX run, and says how many. */
static void bomb(void) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    int started = 0, refused = 0;
    while (started < THREAD_BOMB_MAX) {
        pthread_t thread;
        refused = pthread_create(&thread, &attributes, sleep_forever, NULL);
        if (refused) break;
        started++;
    }
    pthread_attr_destroy(&attributes);
    char line[96];
    if (refused) {
        snprintf(line, sizeof line, "bomb: %d threads started, then %s", started,
                 refused == EAGAIN ? "EAGAIN" : refused == EPERM ? "EPERM" : "another error");
    } else {
        snprintf(line, sizeof line, "bomb: %d threads started", started);
    }
    say(line);
}
#endif

static void misbehave(int place) {
    (void)place;
#ifdef OBSERVE_FRAGILE_AT
    if (place == OBSERVE_FRAGILE_AT) {
        uint64_t token = 0;
        host->notifications->observe(host, HOSTILE_ID, "com.example.fragile", observe_fragile, NULL, &token);
    }
#endif
#if defined(OBSERVE_SEGV_AT) || defined(OBSERVE_SPIN_AT)
#ifdef OBSERVE_SEGV_AT
    if (place == OBSERVE_SEGV_AT) {
#else
    if (place == OBSERVE_SPIN_AT) {
#endif
        uint64_t token = 0;
        host->notifications->observe(host, HOSTILE_ID, "com.example.boom", observe_badly, NULL, &token);
        host->notifications->post(host, HOSTILE_ID, "com.example.boom", NULL);
    }
#endif
#ifdef POST_LOOP_AT
    if (place == POST_LOOP_AT) {
        uint64_t token = 0;
        host->notifications->observe(host, HOSTILE_ID, "com.example.loop", post_again, NULL, &token);
        host->notifications->post(host, HOSTILE_ID, "com.example.loop", "{}");
    }
#endif
#ifdef THREAD_POST_LOOP_AT
    if (place == THREAD_POST_LOOP_AT) {
        uint64_t token = 0;
        host->notifications->observe(host, HOSTILE_ID, "com.example.loop", post_again_from_a_thread, NULL, &token);
        host->notifications->post(host, HOSTILE_ID, "com.example.loop", "{}");
    }
#endif
#ifdef STRAY_POST_THREAD_AT
    if (place == STRAY_POST_THREAD_AT) detach_thread(post_every_10_ms, NULL);
#endif
#ifdef BAD_BUS_CALLS_AT
    if (place == BAD_BUS_CALLS_AT) {
        const pb_notifications_t *bus = host->notifications;
        uint64_t token = 0;
#ifdef BAD_STOPS_FIRST
        for (int turn = 0; turn < BAD_STOPS_FIRST; turn++) bus->stop_observing(host, 424242);
#endif
        report_bus("post bad name", bus->post(host, HOSTILE_ID, "no dots here", "{}"));
        report_bus("post array payload", bus->post(host, HOSTILE_ID, "com.example.x", "[1, 2]"));
        report_bus("post payload not UTF-8", bus->post(host, HOSTILE_ID, "com.example.x", "{\"a\":\"\xff\xfe\"}"));
        report_bus("post NULL id", bus->post(host, NULL, "com.example.x", "{}"));
        report_bus("post unknown id", bus->post(host, "com.example.stranger", "com.example.x", "{}"));
        report_bus("observe NULL callback", bus->observe(host, HOSTILE_ID, "com.example.x", NULL, NULL, &token));
        report_bus("observe NULL token", bus->observe(host, HOSTILE_ID, "com.example.x", nothing_observed, NULL, NULL));
        report_bus("stop unknown token", bus->stop_observing(host, 424242));
#ifdef BAD_BUS_REPEAT
        for (int turn = 0; turn < BAD_BUS_REPEAT; turn++) bus->post(host, HOSTILE_ID, "no dots here", "{}");
        say("bad posts repeated");
#endif
    }
#endif
#ifdef LOUD_POSTS_AT
    if (place == LOUD_POSTS_AT) {
        uint64_t token = 0;
        pb_status_t observed = host->notifications->observe(host, HOSTILE_ID, "com.example.loud", loud_received, NULL, &token);
        pb_status_t posted = PB_OK;
        for (int turn = 1; turn <= 100; turn++) {
            char payload[32];
            snprintf(payload, sizeof payload, "{\"turn\":%d}", turn);
            posted = host->notifications->post(host, HOSTILE_ID, "com.example.loud", payload);
        }
        char line[96];
        snprintf(line, sizeof line, "loud posts: observe %d post %d", (int)observed, (int)posted);
        say(line);
    }
#endif
#ifdef SHARE_FILE_AT
    if (place == SHARE_FILE_AT) {
        Dl_info self;
        if (dladdr((void *)misbehave, &self) != 0 && self.dli_fname) chmod(self.dli_fname, 0666);
    }
#endif
#ifdef PRINT_AT
    if (place == PRINT_AT) {
        printf("garbage from stdio {\"type\":\"exit\",\"code\":0}\n");
        fflush(stdout);
        static const char raw[] = "raw garbage on fd 1\n\x1b]0;owned\x07";
        if (write(1, raw, sizeof raw - 1) < 0) { /* nothing to do */ }
    }
#endif
#ifdef CLOSE_STDIO_AT
    if (place == CLOSE_STDIO_AT) { close(1); close(2); }
#endif
#ifdef IGNORE_SIGNALS_AT
    if (place == IGNORE_SIGNALS_AT) { signal(SIGINT, SIG_IGN); signal(SIGTERM, SIG_IGN); }
#endif
#ifdef BLOCK_SIGNALS_AT
    if (place == BLOCK_SIGNALS_AT) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigprocmask(SIG_BLOCK, &set, NULL);
    }
#endif
#ifdef HANDLE_SIGNALS_AT
    if (place == HANDLE_SIGNALS_AT) { signal(SIGINT, do_nothing); signal(SIGTERM, do_nothing); }
#endif
#ifdef OUTLIVE_HOST_AT
    if (place == OUTLIVE_HOST_AT) {
        char line[64];
        bool cleared = prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) == 0;
        snprintf(line, sizeof line, "worker %d: death signal %s", (int)getpid(), cleared ? "cleared" : "kept");
        say(line);
    }
#endif
#ifdef RESCHEDULE_AT
    if (place == RESCHEDULE_AT) {
        reschedule("host", getppid());
        reschedule("self", (pid_t)syscall(SYS_gettid));
    }
#endif
#ifdef THREAD_BOMB_AT
    if (place == THREAD_BOMB_AT) bomb();
#endif
#ifdef CHDIR_AT
    if (place == CHDIR_AT) { if (chdir("/") != 0) { /* nothing to do */ } }
#endif
#ifdef RAISE_SIGTERM_AT
    if (place == RAISE_SIGTERM_AT) raise(SIGTERM);
#endif
#ifdef LOG_AT
    if (place == LOG_AT) host->log(host, HOSTILE_ID, PB_LOG_INFO, HOSTILE_MESSAGE);
#endif
#ifdef HUGE_LOG_AT
    if (place == HUGE_LOG_AT) {
        size_t size = (size_t)70 << 20;
        char *huge = malloc(size + 1);
        if (huge) {
            memset(huge, 'x', size);
            huge[size] = 0;
            host->log(host, HOSTILE_ID, PB_LOG_INFO, huge);
            free(huge);
        }
    }
#endif
#ifdef INVOKE_AT
#ifndef HOSTILE_INVOKE
#define HOSTILE_INVOKE "com.example.hostile.nothing"
#endif
    if (place == INVOKE_AT) {
        pb_value_t result = {0};
        char error[512];
        pb_status_t status = host->invoke(host, HOSTILE_INVOKE, NULL, 0, &result, error, sizeof error);
        host->release_value(host, &result);
        fprintf(stderr, "hostile invoke: status %d: %s\n", (int)status, error);
    }
#endif
#ifdef DENIED_LOOP_AT
#ifndef HOSTILE_INVOKE
#define HOSTILE_INVOKE "com.example.hostile.nothing"
#endif
    if (place == DENIED_LOOP_AT) {
        pb_status_t files = PB_OK, invoked = PB_OK;
        for (int turn = 0; turn < 1000; turn++) {
            if (host->files) files = host->files->write(host, "tmp/denied.txt", "x", 1, PB_FILES_OVERWRITE);
            pb_value_t result;
            memset(&result, 0, sizeof result);
            char error[256];
            invoked = host->invoke(host, HOSTILE_INVOKE, NULL, 0, &result, error, sizeof error);
            host->release_value(host, &result);
        }
        char line[96];
        snprintf(line, sizeof line, "denied loop: files %d invoke %d", (int)files, (int)invoked);
        host->log(host, HOSTILE_ID, PB_LOG_INFO, line);
    }
#endif
#ifdef CONFINED_LOG_AT
    if (place == CONFINED_LOG_AT) join_thread_then_say(log_from_a_thread, "after the thread joined");
#endif
#ifdef CONFINED_FLOOD_AT
    if (place == CONFINED_FLOOD_AT) join_thread_then_say(flood_from_a_thread, "after the flood");
#endif
#ifdef LOG_THREAD_AT
    if (place == LOG_THREAD_AT) detach_thread(keep_logging, NULL);
#endif
#ifdef FILES_THREAD_AT
    if (place == FILES_THREAD_AT && host->files) detach_thread(use_files, NULL);
#endif
#ifdef FORK_AT
    if (place == FORK_AT && (forked_child = fork()) == 0) {
#ifdef FORK_STOPS
        signal(SIGHUP, SIG_IGN);
        raise(SIGSTOP);
#endif
        sleep(60);
        _exit(0);
    }
#endif
#ifdef NEIGHBOURS_AT
    if (place == NEIGHBOURS_AT) {
        int reachable = 0;
        for (pid_t other = getpid() + 1; other <= getpid() + 64; other++) {
            char task[64];
            snprintf(task, sizeof task, "/proc/self/task/%d", (int)other);
            if (other != forked_child && access(task, F_OK) != 0 && kill(other, 0) == 0) reachable++;
        }
        char line[64];
        snprintf(line, sizeof line, "neighbours it may signal: %d", reachable);
        say(line);
    }
#endif
#ifdef FILES_AT
    if (place == FILES_AT && host->files) {
        host->files->write(host, "tmp/hostile-files-call.txt", "x", 1, PB_FILES_OVERWRITE);
    }
#endif
#ifdef COMPLETE_AT
    if (place == COMPLETE_AT && last_completion) last_completion->complete(last_completion, PB_FETCH_NEW_DATA);
#endif
#ifdef STEAL_CHANNEL_AT
    if (place == STEAL_CHANNEL_AT) detach_thread(steal_channel, NULL);
#endif
#ifdef MUTE_CHANNEL_AT
    if (place == MUTE_CHANNEL_AT) detach_thread(mute_channel, NULL);
#endif
#ifdef FORGE_DENIAL_AT
    if (place == FORGE_DENIAL_AT) forge_denial();
#endif
#ifdef FORGE_BYE_AT
    if (place == FORGE_BYE_AT) {
        static const unsigned char bye[] = {9, 0, 0, 0, 0x87, 2, 0, 0, 0, 0, 0, 0, 0};
        if (write(3, bye, sizeof bye) != (ssize_t)sizeof bye) { /* the test sees the host's view */ }
    }
#endif
#ifdef FORGE_POST_AT
    if (place == FORGE_POST_AT) {
        /* Length 53; kind 0x8F, request id 0; plugin id (19 bytes), name "no dots", payload "{}", depth 1. */
        static const unsigned char post[] = {53, 0, 0, 0, 0x8F, 0, 0, 0, 0, 0, 0, 0, 0,
                                             19, 0, 0, 0, 'c', 'o', 'm', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.',
                                             'h', 'o', 's', 't', 'i', 'l', 'e',
                                             7, 0, 0, 0, 'n', 'o', ' ', 'd', 'o', 't', 's',
                                             2, 0, 0, 0, '{', '}', 1, 0, 0, 0};
        if (write(3, post, sizeof post) != (ssize_t)sizeof post) { /* the test sees the host's view */ }
    }
#endif
#ifdef FORGE_SENDER_AT
    if (place == FORGE_SENDER_AT) {
        /* Length 63; kind 0x8F, request id 0; plugin id "com.example.victim", name "com.example.forged", payload "{}", depth 1. */
        static const unsigned char post[] = {63, 0, 0, 0, 0x8F, 0, 0, 0, 0, 0, 0, 0, 0,
                                             18, 0, 0, 0, 'c', 'o', 'm', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.',
                                             'v', 'i', 'c', 't', 'i', 'm',
                                             18, 0, 0, 0, 'c', 'o', 'm', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.',
                                             'f', 'o', 'r', 'g', 'e', 'd',
                                             2, 0, 0, 0, '{', '}', 1, 0, 0, 0};
        if (write(3, post, sizeof post) != (ssize_t)sizeof post) { /* the test sees the host's view */ }
    }
#endif
#ifdef FORGE_LOG_AT
    if (place == FORGE_LOG_AT) {
        /* Length 47; kind 0x84, request id 0; plugin id present, "org.plugboard.files" (19 bytes);
           level 4 (PB_LOG_ERROR); message "forged". */
        static const unsigned char frame[] = {47, 0, 0, 0, 0x84, 0, 0, 0, 0, 0, 0, 0, 0,
                                              1, 19, 0, 0, 0, 'o', 'r', 'g', '.', 'p', 'l', 'u', 'g', 'b', 'o', 'a',
                                              'r', 'd', '.', 'f', 'i', 'l', 'e', 's',
                                              4, 0, 0, 0, 6, 0, 0, 0, 'f', 'o', 'r', 'g', 'e', 'd'};
        if (write(3, frame, sizeof frame) != (ssize_t)sizeof frame) { /* the test sees the host's view */ }
    }
#endif
#ifdef FLOOD_FRAMES_AT
    if (place == FLOOD_FRAMES_AT) {
        /* Length 46; kind 0x84, request id 0; plugin id present, "com.example.hostile" (19 bytes);
           level 0 (PB_LOG_TRACE); message "flood". */
        static const unsigned char frame[] = {46, 0, 0, 0, 0x84, 0, 0, 0, 0, 0, 0, 0, 0,
                                              1, 19, 0, 0, 0, 'c', 'o', 'm', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e',
                                              '.', 'h', 'o', 's', 't', 'i', 'l', 'e',
                                              0, 0, 0, 0, 5, 0, 0, 0, 'f', 'l', 'o', 'o', 'd'};
        static unsigned char batch[sizeof frame * 1400];
        for (size_t at = 0; at < sizeof batch; at += sizeof frame) memcpy(batch + at, frame, sizeof frame);
        while (write(3, batch, sizeof batch) > 0) {}
    }
#endif
#ifdef ABORT_ON_INNER_NUL_AT
    if (place == ABORT_ON_INNER_NUL_AT && strlen(given_text) != given_length) abort();
#endif
#ifdef THREAD_LOGS_AT
    if (place == THREAD_LOGS_AT && !logging_started) {
        __atomic_store_n(&stop_logging, false, __ATOMIC_RELEASE);
        __atomic_store_n(&logged_once, false, __ATOMIC_RELEASE);
        logging_started = pthread_create(&logging_thread, NULL, log_every_10_ms, NULL) == 0;
        const struct timespec millisecond = {0, 1000000};
        while (logging_started && !__atomic_load_n(&logged_once, __ATOMIC_ACQUIRE)) nanosleep(&millisecond, NULL);
    }
#endif
#ifdef STRAY_THREAD_AT
    if (place == STRAY_THREAD_AT) detach_thread(log_every_10_ms, NULL);
#endif
#ifdef SEGV_AT
    if (place == SEGV_AT) *(volatile int *)null_address = 1;
#endif
#ifdef LATE_SEGV_AT
    if (place == LATE_SEGV_AT) detach_thread(crash_later, NULL);
#endif
#ifdef SLEEP_AT
    if (place == SLEEP_AT) {
        const struct timespec second = {1, 0};
        nanosleep(&second, NULL);
    }
#endif
#ifdef ABORT_AT
    if (place == ABORT_AT) abort();
#endif
#ifdef THROW_AT
    if (place == THROW_AT) throw 42;
#endif
#ifdef EXIT_AT
    if (place == EXIT_AT) exit(0);
#endif
#ifdef QUICK_EXIT_AT
    if (place == QUICK_EXIT_AT) _exit(0);
#endif
#ifdef SPIN_AT
    if (place == SPIN_AT) for (volatile unsigned long turn = 0;; turn++) {}
#endif
}

static bool will_finish(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    say("will-finish-launching");
    misbehave(AT_WILL_FINISH);
    return true;
}

static bool did_finish(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    say("did-finish-launching");
    return true;
}

static bool open_url(void *ctx, const char *url, size_t url_length, const char *options, size_t options_length) {
    (void)ctx; (void)url; (void)url_length; (void)options; (void)options_length;
    say("open-url");
#ifdef ABORT_ON_INNER_NUL_AT
    given_text = url;
    given_length = url_length;
#endif
    misbehave(AT_OPEN_URL);
    return true;
}

static void will_terminate(void *ctx) {
    (void)ctx;
    say("will-terminate");
    misbehave(AT_TERMINATE);
}

#ifdef COMPLETE_AT
static void did_receive(void *ctx, const char *user_info, size_t length, const pb_fetch_completion_t *completion) {
    (void)ctx; (void)user_info; (void)length;
    say("remote-notification");
    last_completion = completion;
#ifdef LOG_BEFORE_COMPLETING
    host->log(host, HOSTILE_ID, PB_LOG_INFO, "answering at once");
#endif
    completion->complete(completion, PB_FETCH_NEW_DATA);
}
static const pb_remote_notifications_t notifications = {sizeof(pb_remote_notifications_t), NULL, NULL, did_receive};
#endif

#ifdef COMPLETE_FROM_THREAD_MS
static void *complete_later(void *given) {
    const pb_fetch_completion_t *completion = (const pb_fetch_completion_t *)given;
    const struct timespec wait = {COMPLETE_FROM_THREAD_MS / 1000, (COMPLETE_FROM_THREAD_MS % 1000) * 1000000L};
    nanosleep(&wait, NULL);
    host->log(host, HOSTILE_ID, PB_LOG_INFO, "completing from a thread");
    completion->complete(completion, PB_FETCH_NEW_DATA);
    return NULL;
}

static void did_receive(void *ctx, const char *user_info, size_t length, const pb_fetch_completion_t *completion) {
    (void)ctx; (void)user_info; (void)length;
    say("remote-notification");
    detach_thread(complete_later, (void *)completion);
}
static const pb_remote_notifications_t notifications = {sizeof(pb_remote_notifications_t), NULL, NULL, did_receive};
#endif

#ifdef SAVED_STATE
#ifndef HOSTILE_STATE
#define HOSTILE_STATE "hostile state"
#endif
static pb_status_t save_state(void *ctx, pb_bytes_t *out) {
    (void)ctx;
    say("save-state");
    misbehave(AT_SAVE_STATE);
    out->data = (const uint8_t *)HOSTILE_STATE;
    out->size = strlen(HOSTILE_STATE);
#if defined(NULL_STATE_AT) && NULL_STATE_AT == AT_SAVE_STATE
    out->data = NULL;
    out->size = 100;
#endif
#if defined(HUGE_STATE_AT) && HUGE_STATE_AT == AT_SAVE_STATE
#ifndef HUGE_STATE_SIZE
#define HUGE_STATE_SIZE ((size_t)PB_SAVED_STATE_MAX_SIZE + 1)
#endif
    static const uint8_t one_byte[1] = {0};
    out->data = one_byte;
    out->size = HUGE_STATE_SIZE;
#endif
    return PB_OK;
}

static pb_status_t restore_state(void *ctx, const char *saved_version, const uint8_t *data, size_t size) {
    (void)ctx; (void)saved_version;
    misbehave(AT_RESTORE_STATE);
#if defined(TRUSTING_RESTORE_AT) && TRUSTING_RESTORE_AT == AT_RESTORE_STATE
    if (size != strlen(HOSTILE_STATE) || memcmp(data, HOSTILE_STATE, size) != 0) abort();
#endif
    char line[256] = "restored: ";
    size_t used = strlen(line);
    size_t room = sizeof line - used - 1;
    memcpy(line + used, data, size < room ? size : room);
    say(line);
    return PB_OK;
}

static const pb_saved_state_t saved_state = {sizeof(pb_saved_state_t), save_state, NULL, restore_state};
#endif

static const pb_launch_t launch = {sizeof(pb_launch_t), will_finish, did_finish};
static const pb_open_url_t urls = {sizeof(pb_open_url_t), open_url};
static const pb_termination_t termination = {sizeof(pb_termination_t), will_terminate};

static void at_exit(void) { misbehave(AT_ATEXIT); }

/* The library's own lines, before its plugin is registered and after deinit. */
static void say_as_library(const char *event) {
    if (host) host->log(host, NULL, PB_LOG_INFO, event);
}

#ifdef ONCE_AT
/* Whether the place ran before in this process: set once, never reset. */
static bool ran_once(int place) {
    static bool ran;
    if (place != ONCE_AT) return false;
    if (ran) {
        if (host) host->log(host, NULL, PB_LOG_ERROR, "already initialized");
        return true;
    }
    ran = true;
    return false;
}
#endif

static bool init(const pb_host_t *given) {
    host = given;
    say_as_library("init");
    atexit(at_exit);
    misbehave(AT_INIT);
#ifdef ONCE_AT
    if (ran_once(AT_INIT)) return false;
#endif
#if defined(FAIL_AT) && FAIL_AT == AT_INIT
    return false;
#else
    return true;
#endif
}

static void deinit(void) {
    say_as_library("deinit");
#ifdef THREAD_LOGS_AT
    if (logging_started) {
        __atomic_store_n(&stop_logging, true, __ATOMIC_RELEASE);
        pthread_join(logging_thread, NULL);
        logging_started = false;
    }
#endif
    misbehave(AT_DEINIT);
}

static bool register_plugins(const pb_registrar_t *registrar) {
    misbehave(AT_REGISTER);
#ifdef ONCE_AT
    if (ran_once(AT_REGISTER)) return false;
#endif
#if defined(FAIL_AT) && FAIL_AT == AT_REGISTER
    (void)registrar;
    return false;
#endif
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.priority = HOSTILE_PRIORITY;
    plugin.id = HOSTILE_ID;
#ifdef ID_FROM_ENVIRONMENT
    if (getenv("HOSTILE_ID_NOW")) plugin.id = getenv("HOSTILE_ID_NOW");
#endif
    plugin.name = HOSTILE_NAME;
    plugin.version = HOSTILE_VERSION;
    plugin.launch = &launch;
    plugin.open_url = &urls;
    plugin.termination = &termination;
#if defined(COMPLETE_AT) || defined(COMPLETE_FROM_THREAD_MS)
    plugin.remote_notifications = &notifications;
#endif
#ifdef SAVED_STATE
    plugin.saved_state = &saved_state;
#endif
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

__attribute__((constructor)) static void construct(void) {
    misbehave(AT_CONSTRUCTOR);
}

#ifdef LOAD_MARKER
__attribute__((constructor)) static void mark_load(void) {
    FILE *marker = fopen(LOAD_MARKER, "a");
    if (marker) { fprintf(marker, "loaded %d\n", (int)getpid()); fclose(marker); }
}
#endif

static const pb_entry_t entry = {
    sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, deinit, register_plugins,
};

#ifdef __cplusplus
extern "C"
#endif
PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    misbehave(AT_ENTRY);
    return &entry;
}
