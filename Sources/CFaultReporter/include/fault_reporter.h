/*
 * Which plugin code is running, for the messages a host prints when that code
 * crashes, exits or does not return. C, because the signal handler that reads
 * it may only do async-signal-safe things: no allocation, no locks.
 *
 * Each host owns one record, written by its dispatch thread around every call
 * into plugin code (atomic stores, relaxed or release, no lock: a few cycles per call) and read by
 * the fatal-signal handler, the exit check and the call-timeout watchdog.
 * Records and labels are never freed, so a reader can never see freed memory.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

/** Who runs in a call: "com.example.x" (or the library, for init and friends), and the library's path. */
typedef struct pbf_label {
    const char *who;
    const char *library;
} pbf_label_t;

/** What one host's dispatch thread is calling. Fields are accessed atomically through the functions below. */
typedef struct pbf_record {
    const pbf_label_t *label;      /* NULL between calls */
    const char *callback;          /* "open_url", "init", … */
    unsigned long thread;          /* pthread_self() of the dispatching thread */
    uint64_t sequence;             /* advances with every run of calls */
    struct pbf_record *next;       /* the process's list of records */
} pbf_record_t;

/** A new label with copies of `who` and `library` (control characters written as `\xNN`); never freed. Never NULL (a shared "a plugin" label when memory is short). */
const pbf_label_t *pbf_label_create(const char *who, const char *library);

/** A new record, already in the process's list; never freed. Never NULL (an unlisted record when memory is short). */
pbf_record_t *pbf_record_create(void);

/** Starts a run of calls of `callback` on the calling thread: one event, or one loading stage. */
static inline void pbf_begin(pbf_record_t *record, const char *callback, unsigned long thread) {
    __atomic_store_n(&record->thread, thread, __ATOMIC_RELAXED);
    __atomic_store_n(&record->callback, callback, __ATOMIC_RELAXED);
    __atomic_store_n(&record->sequence, record->sequence + 1, __ATOMIC_RELAXED);
}

/** Plugin code of `label` is about to run. A run calls each label at most once, so
    (sequence, label) names one call. */
static inline void pbf_enter(pbf_record_t *record, const pbf_label_t *label) {
    __atomic_store_n(&record->label, label, __ATOMIC_RELEASE);
}

/** No plugin code of this record runs any more. */
static inline void pbf_leave(pbf_record_t *record) {
    __atomic_store_n(&record->label, (const pbf_label_t *)0, __ATOMIC_RELEASE);
}

/** How many plugin-function invocations the calling thread is nested in: 0 on a thread that runs
    no invoked function. Thread-local, so read and set without a lock or a key lookup. */
extern __thread uint32_t pbf_invocation_depth;

/** The calling thread's invocation depth. */
static inline uint32_t pbf_depth(void) { return pbf_invocation_depth; }

/** Sets the calling thread's invocation depth. */
static inline void pbf_set_depth(uint32_t depth) { pbf_invocation_depth = depth; }

/** A consistent-enough view of a record for the watchdog: the label (NULL when idle), the callback and the run's sequence number. */
static inline const pbf_label_t *pbf_current(const pbf_record_t *record, const char **callback, uint64_t *sequence) {
    const pbf_label_t *label = __atomic_load_n(&record->label, __ATOMIC_ACQUIRE);
    *callback = __atomic_load_n(&record->callback, __ATOMIC_RELAXED);
    *sequence = __atomic_load_n(&record->sequence, __ATOMIC_RELAXED);
    return label;
}

/** The label of the plugin code a record says runs (NULL when idle): a plain load, for the thread that writes the record. */
static inline const pbf_label_t *pbf_label_now(const pbf_record_t *record) {
    return __atomic_load_n(&record->label, __ATOMIC_RELAXED);
}

/** The label of the plugin code the calling thread is running (and its callback), or NULL
    outside plugin calls. Async-signal-safe: for handlers that name who made a fault. */
const pbf_label_t *pbf_running_here(const char **callback);

/**
 * Installs, once per process, the handlers that print one line to `fd` when
 * plugin code dies: for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT
 * ("plugboard: com.example.x crashed with SIGSEGV in open_url (/path/libx.so)"),
 * then re-raise the signal to the handler that was there before (the Swift
 * runtime's backtracer, or the default action); and an atexit check for
 * plugin code calling exit ("… called exit in init"). The calling thread gets
 * an alternate signal stack, so a stack overflow is reported too. Returns
 * false if a handler could not be installed. Later calls only change `fd`.
 */
bool pbf_install(int fd);

/** Gives the calling thread an alternate signal stack (for a dispatch thread other than the installing one). */
bool pbf_prepare_thread(void);
