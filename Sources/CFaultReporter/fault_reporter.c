#define _GNU_SOURCE
#include "fault_reporter.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__thread uint32_t pbf_invocation_depth;

static pbf_record_t *records;           /* head of the list; records are pushed, never removed */
static int output_fd = 2;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous[FATAL_COUNT];

/* What a label or record creation gives when memory is short: calls still run, unattributed. */
static const pbf_label_t unknown_label = {"a plugin", ""};
static pbf_record_t unlisted_record;

/* Whether `byte` is a control character, which labels write visibly ("\x1b"), so a
   file name cannot forge lines or send terminal escapes. */
static int is_control(unsigned char byte) { return byte < 0x20 || byte == 0x7f; }

/* Whether the `length` bytes of `text` hold a control character: eight bytes at a time, a word
   holding one when a byte is below 0x20 (its high bit set by the subtraction and clear in the byte)
   or equal to 0x7f (zero once xored). The borrows this lets through can only follow a byte that
   matched, so the answer is exact. A path has none, and costs a step per eight bytes. */
static int has_control(const char *text, size_t length) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t index = 0;
    for (; index + 8 <= length; index += 8) {
        uint64_t word, deleted;
        memcpy(&word, text + index, sizeof word);
        deleted = word ^ (ones * 0x7f);
        if (((word - ones * 0x20) & ~word & highs) | ((deleted - ones) & ~deleted & highs)) return 1;
    }
    for (; index < length; index++)
        if (is_control((unsigned char)text[index])) return 1;
    return 0;
}

/* The length of the `length` bytes of `text` with their control characters written visibly. */
static size_t escaped_length(const char *text, size_t length) {
    if (!has_control(text, length)) return length;
    size_t controls = 0;
    for (size_t index = 0; index < length; index++) controls += is_control((unsigned char)text[index]);
    return length + 3 * controls;
}

/* Writes the `length` bytes of `text`, `escaped` bytes once its control characters are written
   visibly, and a NUL to `out`; returns the end. */
static char *write_escaped(char *out, const char *text, size_t length, size_t escaped) {
    if (escaped == length) {
        memcpy(out, text, length);
        out[length] = 0;
        return out + length + 1;
    }
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *byte = (const unsigned char *)text; *byte; byte++) {
        if (is_control(*byte)) {
            *out++ = '\\';
            *out++ = 'x';
            *out++ = hex[*byte >> 4];
            *out++ = hex[*byte & 0xf];
        } else {
            *out++ = (char)*byte;
        }
    }
    *out++ = 0;
    return out;
}

/* One allocation: the label, then its two texts. */
const pbf_label_t *pbf_label_create(const char *who, const char *library) {
    if (!who) who = "";
    if (!library) library = "";
    size_t who_bytes = strlen(who), library_bytes = strlen(library);
    size_t who_length = escaped_length(who, who_bytes), library_length = escaped_length(library, library_bytes);
    pbf_label_t *label = malloc(sizeof *label + who_length + 1 + library_length + 1);
    if (!label) return &unknown_label;
    char *texts = (char *)(label + 1);
    label->who = texts;
    label->library = texts + who_length + 1;
    write_escaped(write_escaped(texts, who, who_bytes, who_length), library, library_bytes, library_length);
    return label;
}

pbf_record_t *pbf_record_create(void) {
    pbf_record_t *record = calloc(1, sizeof *record);
    if (!record) return &unlisted_record;
    pbf_record_t *head = __atomic_load_n(&records, __ATOMIC_ACQUIRE);
    do {
        record->next = head;
    } while (!__atomic_compare_exchange_n(&records, &head, record, true, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
    return record;
}

/* See the header. */
const pbf_label_t *pbf_running_here(const char **callback) {
    unsigned long self = (unsigned long)pthread_self();
    for (pbf_record_t *record = __atomic_load_n(&records, __ATOMIC_ACQUIRE); record; record = record->next) {
        if (__atomic_load_n(&record->thread, __ATOMIC_RELAXED) != self) continue;
        const pbf_label_t *label = __atomic_load_n(&record->label, __ATOMIC_ACQUIRE);
        if (!label) continue;
        *callback = __atomic_load_n(&record->callback, __ATOMIC_RELAXED);
        return label;
    }
    return NULL;
}

/* Appends `text` to the line being built, within its capacity. */
static void append(char *line, size_t *length, size_t capacity, const char *text) {
    for (; text && *text && *length + 1 < capacity; text++) line[(*length)++] = *text;
}

/* "plugboard: WHO VERB in CALLBACK (LIBRARY)\n", written with one write(2). */
static void report(const pbf_label_t *label, const char *callback, const char *verb) {
    char line[1024];
    size_t length = 0;
    append(line, &length, sizeof line, "plugboard: ");
    append(line, &length, sizeof line, label->who);
    append(line, &length, sizeof line, verb);
    append(line, &length, sizeof line, " in ");
    append(line, &length, sizeof line, callback ? callback : "a callback");
    if (label->library[0] && strcmp(label->library, label->who) != 0) {
        append(line, &length, sizeof line, " (");
        append(line, &length, sizeof line, label->library);
        append(line, &length, sizeof line, ")");
    }
    line[length++] = '\n';
    ssize_t ignored = write(output_fd, line, length);
    (void)ignored;
}

static const char *signal_name(int signal) {
    switch (signal) {
    case SIGSEGV: return " crashed with SIGSEGV";
    case SIGBUS: return " crashed with SIGBUS";
    case SIGILL: return " crashed with SIGILL";
    case SIGFPE: return " crashed with SIGFPE";
    case SIGABRT: return " crashed with SIGABRT";
    default: return " crashed with a fatal signal";
    }
}

static void on_fatal_signal(int signal, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    const char *callback = NULL;
    const pbf_label_t *label = pbf_running_here(&callback);
    if (label) report(label, callback, signal_name(signal));
    for (size_t index = 0; index < FATAL_COUNT; index++) {
        if (fatal_signals[index] == signal) sigaction(signal, &previous[index], NULL);
    }
    errno = saved;
    /* A fault re-executes the faulting instruction on return and reaches the
       previous handler; a signal that was sent (abort, kill) is sent again. */
    if (info == NULL || info->si_code <= 0) raise(signal);
}

static void at_exit(void) {
    const char *callback = NULL;
    const pbf_label_t *label = pbf_running_here(&callback);
    if (label) report(label, callback, " called exit");
}

bool pbf_prepare_thread(void) {
    static __thread bool prepared;
    if (prepared) return true;
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_size = 64 * 1024;
    stack.ss_sp = malloc(stack.ss_size);   /* the thread's for good: a thread that exits leaks it */
    if (!stack.ss_sp || sigaltstack(&stack, NULL) != 0) return false;
    prepared = true;
    return true;
}

bool pbf_install(int fd) {
    __atomic_store_n(&output_fd, fd, __ATOMIC_RELAXED);
    static bool installed;
    if (installed) return true;
    bool ok = pbf_prepare_thread();
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < FATAL_COUNT; index++) {
        if (sigaction(fatal_signals[index], &action, &previous[index]) != 0) ok = false;
    }
    if (atexit(at_exit) != 0) ok = false;
    installed = true;
    return ok;
}
