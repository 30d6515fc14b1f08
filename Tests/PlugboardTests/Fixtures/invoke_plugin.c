/*
 * A plugin that calls another plugin's functions through pb_host_t.invoke, for
 * the invocation tests. Built twice with -DSELF_ID="…" -DPEER_ID="…" (default
 * com.example.invoke.a with peer com.example.invoke.b), so two libraries call
 * each other: a cycle A → B → A, a self-invocation, a call from a thread of the
 * plugin, a crash in the peer, a pointer, wrong arguments; at launch each calls
 * PEER.threaded(4), whose thread calls back this plugin's twice while this
 * callback still runs, and logs "launch: threaded 8"; prepared invocations
 * (prepared_*, prepare_kept and call_kept); two large buffers in one invocation
 * (big_pair, to the peer's pair_size). Each function that
 * invokes returns the invocation's status when it fails, and logs
 * "WHAT: status S: MESSAGE" as the plugin.
 */
#define _POSIX_C_SOURCE 200809L
#include <plugboard.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef SELF_ID
#define SELF_ID "com.example.invoke.a"
#endif
#ifndef PEER_ID
#define PEER_ID "com.example.invoke.b"
#endif

static const pb_host_t *host;

static pb_status_t failed(const char *what, pb_status_t status, const char *error) {
    char line[1200];
    snprintf(line, sizeof line, "%s: status %d: %s", what, status, error);
    host->log(host, SELF_ID, PB_LOG_ERROR, line);
    return status;
}

static double twice(double value) { return 2 * value; }

/* The argument in capitals, allocated per call (release = free). */
static const char *shout(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy == NULL) return NULL;
    for (size_t i = 0; i < size; i++) copy[i] = (char)toupper((unsigned char)text[i]);
    return copy;
}

static void crash(void) {
    volatile int *nowhere = NULL;
    *nowhere = 1;
}

static void *echo_pointer(void *value) { return value; }

/* n more calls across the pair: PEER.bounce(n - 1) until 0; n, or the failing status. */
static int64_t bounce(int64_t n) {
    if (n <= 0) return 0;
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_INT;
    argument.integer = n - 1;
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->invoke(host, PEER_ID ".bounce", &argument, 1, &result, error, sizeof error);
    if (status != PB_OK) return failed("bounce", status, error);
    return result.integer < 0 ? result.integer : result.integer + 1;
}

/* This plugin's own twice, through the host. */
static double self_twice(double value) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_DOUBLE;
    argument.double_value = value;
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->invoke(host, SELF_ID ".twice", &argument, 1, &result, error, sizeof error);
    if (status != PB_OK) return failed("self_twice", status, error);
    return result.double_value;
}

/* "PEER says TEXT-IN-CAPITALS": a string argument and a host-allocated string result, released. */
static const char *relay_shout(const char *text) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_STRING;
    argument.string = text;
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->invoke(host, PEER_ID ".shout", &argument, 1, &result, error, sizeof error);
    char *line = malloc(strlen(error) + 1200);
    if (line == NULL) return NULL;
    if (status == PB_OK && result.kind == PB_VALUE_STRING) {
        snprintf(line, 1200, "%s says %s", PEER_ID, result.string);
    } else {
        snprintf(line, strlen(error) + 1200, "status %d: %s", status, error);
    }
    host->release_value(host, &result);
    return line;
}

struct threaded_call {
    double value;
    double result;
};

static void *threaded_main(void *argument) {
    struct threaded_call *call = argument;
    pb_value_t value = {0};
    value.kind = PB_VALUE_DOUBLE;
    value.double_value = call->value;
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->invoke(host, PEER_ID ".twice", &value, 1, &result, error, sizeof error);
    call->result = status == PB_OK ? result.double_value : (double)failed("threaded", status, error);
    return NULL;
}

/* PEER.twice(value) from a thread of this plugin, while the caller waits in this function. */
static double threaded(double value) {
    struct threaded_call call = {value, NAN};
    pthread_t thread;
    if (pthread_create(&thread, NULL, threaded_main, &call) != 0) return NAN;
    pthread_join(thread, NULL);
    return call.result;
}

/* Invokes `function` with one argument and returns the status (logging a failure). */
static pb_status_t status_of(const char *what, const char *function, pb_value_t argument, size_t count) {
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->invoke(host, function, &argument, count, &result, error, sizeof error);
    host->release_value(host, &result);
    return status == PB_OK ? PB_OK : failed(what, status, error);
}

static int32_t call_crash(void) {
    pb_value_t none = {0};
    return status_of("call_crash", PEER_ID ".crash", none, 0);
}

static int32_t pass_pointer(void) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_POINTER;
    argument.pointer = &argument;
    return status_of("pass_pointer", PEER_ID ".echo_pointer", argument, 1);
}

static int32_t bad_argument(void) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_STRING;
    argument.string = "abc";
    return status_of("bad_argument", PEER_ID ".twice", argument, 1);
}

static int32_t bad_kind(void) {
    pb_value_t argument = {0};
    argument.kind = 99;
    return status_of("bad_kind", PEER_ID ".twice", argument, 1);
}

static int32_t unknown(void) {
    pb_value_t none = {0};
    return status_of("unknown", "com.example.nobody.twice", none, 0);
}

/* PEER.twice prepared once and called n times, argument i set to x + i before call i: the sum of
 * the results, or the failing status. */
static double prepared_sum(double x, int64_t n) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_DOUBLE;
    argument.double_value = x;
    pb_prepared_invoke_t *prepared = NULL;
    char error[1024];
    pb_status_t status = host->prepare_invoke(host, PEER_ID ".twice", &argument, 1, &prepared, error, sizeof error);
    if (status != PB_OK) return failed("prepared_sum", status, error);
    double sum = 0;
    for (int64_t i = 0; i < n && status == PB_OK; i++) {
        argument.double_value = x + (double)i;
        if (i > 0) status = host->set_prepared_argument(host, prepared, 0, &argument, error, sizeof error);
        pb_value_t result = {0};
        if (status == PB_OK) status = host->call_prepared(host, prepared, &result, error, sizeof error);
        sum += result.double_value;
    }
    host->release_prepared(host, prepared);
    return status == PB_OK ? sum : failed("prepared_sum", status, error);
}

/* PEER.shout prepared with "first", called, set to TEXT, called: "FIRST TEXT-IN-CAPITALS" (the
 * results released), or "status S: MESSAGE". */
static const char *prepared_shout(const char *text) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_STRING;
    argument.string = "first";
    char *line = malloc(2400);
    if (line == NULL) return NULL;
    pb_prepared_invoke_t *prepared = NULL;
    char error[1024];
    pb_value_t first = {0}, second = {0};
    pb_status_t status = host->prepare_invoke(host, PEER_ID ".shout", &argument, 1, &prepared, error, sizeof error);
    if (status == PB_OK) status = host->call_prepared(host, prepared, &first, error, sizeof error);
    argument.string = text;
    if (status == PB_OK) status = host->set_prepared_argument(host, prepared, 0, &argument, error, sizeof error);
    if (status == PB_OK) status = host->call_prepared(host, prepared, &second, error, sizeof error);
    if (status == PB_OK) snprintf(line, 2400, "%s %s", first.string, second.string);
    else snprintf(line, 2400, "status %d: %s", status, error);
    host->release_value(host, &first);
    host->release_value(host, &second);
    host->release_prepared(host, prepared);
    return line;
}

/* Each misuse of a prepared invocation, logged as "prepared_misuse: status S: MESSAGE"; the number of
 * misuses answered with the documented status (8 when all are). */
static int32_t prepared_misuse(void) {
    char error[1024];
    int32_t right = 0;
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_DOUBLE;
    argument.double_value = 1;
    pb_value_t wrong = {0};
    wrong.kind = PB_VALUE_STRING;
    wrong.string = "abc";
    pb_value_t result = {0};
    pb_prepared_invoke_t *prepared = NULL;

    /* An unknown function and an argument that does not fit: no handle. */
    pb_status_t status = host->prepare_invoke(host, "com.example.nobody.twice", &argument, 1, &prepared, error, sizeof error);
    right += failed("prepared_misuse", status, error) == PB_ERR_NOT_FOUND && prepared == NULL;
    status = host->prepare_invoke(host, PEER_ID ".twice", &wrong, 1, &prepared, error, sizeof error);
    right += failed("prepared_misuse", status, error) == PB_ERR_INVALID_ARGUMENT && prepared == NULL;

    status = host->prepare_invoke(host, PEER_ID ".twice", &argument, 1, &prepared, error, sizeof error);
    if (status != PB_OK) return failed("prepared_misuse", status, error);
    /* An argument the signature has not, and one of the wrong type: refused, the old one kept. */
    status = host->set_prepared_argument(host, prepared, 1, &argument, error, sizeof error);
    right += failed("prepared_misuse", status, error) == PB_ERR_INVALID_ARGUMENT;
    status = host->set_prepared_argument(host, prepared, 0, &wrong, error, sizeof error);
    right += failed("prepared_misuse", status, error) == PB_ERR_INVALID_ARGUMENT;
    status = host->call_prepared(host, prepared, &result, error, sizeof error);
    right += status == PB_OK && result.double_value == 2;
    /* Released: the handle is refused, a second release ignored. */
    host->release_prepared(host, prepared);
    host->release_prepared(host, prepared);
    status = host->call_prepared(host, prepared, &result, error, sizeof error);
    right += failed("prepared_misuse", status, error) == PB_ERR_INVALID_ARGUMENT;
    /* A handle never made, and NULL. */
    status = host->call_prepared(host, (pb_prepared_invoke_t *)(uintptr_t)0xdead0, &result, error, sizeof error);
    right += failed("prepared_misuse", status, error) == PB_ERR_INVALID_ARGUMENT;
    status = host->set_prepared_argument(host, NULL, 0, &argument, error, sizeof error);
    right += failed("prepared_misuse", status, error) == PB_ERR_INVALID_ARGUMENT;
    host->release_prepared(host, NULL);
    return right;
}

/* The handle `prepare_kept` made, called by `call_kept`: across a reload of the peer. */
static pb_prepared_invoke_t *kept;

/* Prepares PEER.twice(x) and keeps the handle. */
static int32_t prepare_kept(double x) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_DOUBLE;
    argument.double_value = x;
    char error[1024];
    host->release_prepared(host, kept);
    pb_status_t status = host->prepare_invoke(host, PEER_ID ".twice", &argument, 1, &kept, error, sizeof error);
    return status == PB_OK ? PB_OK : failed("prepare_kept", status, error);
}

/* Calls the kept handle: its result, or the failing status. */
static double call_kept(void) {
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->call_prepared(host, kept, &result, error, sizeof error);
    return status == PB_OK ? result.double_value : failed("call_kept", status, error);
}

/* One thread of prepared_threads: calls the shared handle until it is refused as released (at most
 * a million times); counts the calls that answered twice an argument it was set to, and the others. */
struct prepared_caller {
    pb_prepared_invoke_t *prepared;
    long answered, wrong;
};

static void *call_until_released(void *argument) {
    struct prepared_caller *caller = argument;
    char error[1024];
    for (int i = 0; i < 1000000; i++) {
        pb_value_t result = {0};
        pb_status_t status = host->call_prepared(host, caller->prepared, &result, error, sizeof error);
        if (status == PB_ERR_INVALID_ARGUMENT) break;
        if (status == PB_OK && (result.double_value == 2 || result.double_value == 4)) __atomic_add_fetch(&caller->answered, 1, __ATOMIC_RELEASE);
        else caller->wrong++;
    }
    return NULL;
}

/* Four threads call one prepared PEER.twice at once while this one sets its argument (refused while a
 * call runs) and then releases it under them: 0 when every call answered right or was refused as
 * released, and at least one set was refused or taken; else the number of wrong answers, or -1. */
static int64_t prepared_threads(void) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_DOUBLE;
    argument.double_value = 1;
    char error[1024];
    pb_prepared_invoke_t *prepared = NULL;
    if (host->prepare_invoke(host, PEER_ID ".twice", &argument, 1, &prepared, error, sizeof error) != PB_OK) {
        return failed("prepared_threads", -1, error);
    }
    struct prepared_caller callers[4];
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        callers[i] = (struct prepared_caller){prepared, 0, 0};
        if (pthread_create(&threads[i], NULL, call_until_released, &callers[i]) != 0) return -1;
    }
    /* Every thread is calling before the sets and the release (at most 10 s). */
    const struct timespec millisecond = {0, 1000000};
    for (int i = 0, waited = 0; i < 4 && waited < 10000; waited++) {
        if (__atomic_load_n(&callers[i].answered, __ATOMIC_ACQUIRE) > 0) i++;
        else nanosleep(&millisecond, NULL);
    }
    long sets = 0;
    for (int i = 0; i < 200; i++) {
        argument.double_value = 1 + (i % 2);
        pb_status_t status = host->set_prepared_argument(host, prepared, 0, &argument, error, sizeof error);
        if (status == PB_OK || status == PB_ERR_WRONG_STATE) sets++;
    }
    host->release_prepared(host, prepared);
    long wrong = 0, answered = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        wrong += callers[i].wrong;
        answered += callers[i].answered;
    }
    char line[128];
    snprintf(line, sizeof line, "prepared_threads: %ld answered, %ld wrong, %ld sets", answered, wrong, sets);
    host->log(host, SELF_ID, PB_LOG_INFO, line);
    bool everyone = true;
    for (int i = 0; i < 4; i++) everyone = everyone && callers[i].answered > 0;
    return wrong == 0 && sets == 200 && everyone ? 0 : wrong + 1;
}

/* This plugin's own set_own_prepared, prepared by prepared_reentry. */
static pb_prepared_invoke_t *own_prepared;

/* Sets the argument of the invocation that is calling it: the status (refused while it runs). */
static int32_t set_own_prepared(int64_t value) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_INT;
    argument.integer = value + 1;
    char error[1024];
    pb_status_t status = host->set_prepared_argument(host, own_prepared, 0, &argument, error, sizeof error);
    return status == PB_OK ? PB_OK : failed("set_own_prepared", status, error);
}

/* Calls set_own_prepared through a prepared invocation: its status during the call, or 1 when the
 * set after the call failed. */
static int32_t prepared_reentry(void) {
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_INT;
    char error[1024];
    pb_status_t status = host->prepare_invoke(host, SELF_ID ".set_own_prepared", &argument, 1, &own_prepared, error, sizeof error);
    if (status != PB_OK) return failed("prepared_reentry", status, error);
    pb_value_t result = {0};
    status = host->call_prepared(host, own_prepared, &result, error, sizeof error);
    if (status != PB_OK) return failed("prepared_reentry", status, error);
    status = host->set_prepared_argument(host, own_prepared, 0, &argument, error, sizeof error);
    host->release_prepared(host, own_prepared);
    return status == PB_OK ? (int32_t)result.integer : 1;
}

/* did_finish_launching: PEER.threaded(4), which calls this plugin's twice from a thread of PEER. */
static bool did_finish_launching(void *ctx, const char *options_json, size_t options_len) {
    (void)ctx;
    (void)options_json;
    (void)options_len;
    pb_value_t argument = {0};
    argument.kind = PB_VALUE_DOUBLE;
    argument.double_value = 4;
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->invoke(host, PEER_ID ".threaded", &argument, 1, &result, error, sizeof error);
    if (status != PB_OK) {
        failed("launch", status, error);
        return true;
    }
    char line[64];
    snprintf(line, sizeof line, "launch: threaded %g", result.double_value);
    host->log(host, SELF_ID, PB_LOG_INFO, line);
    return true;
}

static const pb_launch_t launch = {sizeof(pb_launch_t), NULL, did_finish_launching};

/* The error of an invocation with a malformed, non-ASCII address, in a 45-byte buffer: cut before the "ö". */
static const char *cut_error(void) {
    static char error[45];
    pb_value_t result = {0};
    host->invoke(host, "com.example.nob\xc3\xb6" "dy.f", NULL, 0, &result, error, sizeof error);
    return error;
}

/* The two buffers' sizes together. */
static uint64_t pair_size(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size) {
    (void)a;
    (void)b;
    return a_size + b_size;
}

/* PEER.pair_size with two buffers of `megabytes` MiB each, then PEER.twice(2): the first's status
   (or the size), then the second's result, or the failing status. An invocation that cannot go to
   the peer's process in one frame must leave the host reachable for the next. */
static int64_t big_pair(uint32_t megabytes) {
    size_t size = (size_t)megabytes << 20;
    uint8_t *buffer = calloc(size ? size : 1, 1);
    if (buffer == NULL) return -1000;
    pb_value_t arguments[2] = {{0}, {0}};
    for (int i = 0; i < 2; i++) {
        arguments[i].kind = PB_VALUE_BYTES;
        arguments[i].bytes.data = buffer;
        arguments[i].bytes.size = size;
    }
    pb_value_t result = {0};
    char error[1024];
    pb_status_t status = host->invoke(host, PEER_ID ".pair_size", arguments, 2, &result, error, sizeof error);
    free(buffer);
    if (status != PB_OK) failed("big_pair", status, error);
    int64_t first = status == PB_OK ? (int64_t)result.unsigned_integer : status;
    pb_value_t two = {0};
    two.kind = PB_VALUE_DOUBLE;
    two.double_value = 2;
    status = host->invoke(host, PEER_ID ".twice", &two, 1, &result, error, sizeof error);
    if (status != PB_OK) return failed("big_pair then twice", status, error);
    return first * 10 + (int64_t)result.double_value;
}

#define FUNCTION(NAME, SIGNATURE) {sizeof(pb_function_t), #NAME, SIGNATURE, NULL, (void (*)(void))NAME, NULL}

static const pb_function_t functions[] = {
    FUNCTION(twice, "double (double)"),
    {sizeof(pb_function_t), "shout", "string (string)", NULL, (void (*)(void))shout, free},
    FUNCTION(crash, "void ()"),
    FUNCTION(echo_pointer, "pointer (pointer)"),
    FUNCTION(bounce, "int64 (int64)"),
    FUNCTION(self_twice, "double (double)"),
    {sizeof(pb_function_t), "relay_shout", "string (string)", NULL, (void (*)(void))relay_shout, free},
    FUNCTION(threaded, "double (double)"),
    FUNCTION(call_crash, "int32 ()"),
    FUNCTION(pass_pointer, "int32 ()"),
    FUNCTION(bad_argument, "int32 ()"),
    FUNCTION(bad_kind, "int32 ()"),
    FUNCTION(unknown, "int32 ()"),
    FUNCTION(cut_error, "string ()"),
    FUNCTION(prepared_sum, "double (double, int64)"),
    {sizeof(pb_function_t), "prepared_shout", "string (string)", NULL, (void (*)(void))prepared_shout, free},
    FUNCTION(prepared_misuse, "int32 ()"),
    FUNCTION(prepare_kept, "int32 (double)"),
    FUNCTION(call_kept, "double ()"),
    FUNCTION(set_own_prepared, "int32 (int64)"),
    FUNCTION(prepared_reentry, "int32 ()"),
    FUNCTION(prepared_threads, "int64 ()"),
    FUNCTION(pair_size, "uint64 (bytes, bytes)"),
    FUNCTION(big_pair, "int64 (uint32)"),
};

static bool init(const pb_host_t *given) {
    host = given;
    return host->struct_size >= offsetof(pb_host_t, release_prepared) + sizeof host->release_prepared;
}

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin = {0};
    plugin.struct_size = sizeof plugin;
    plugin.id = SELF_ID;
    plugin.launch = &launch;
    plugin.functions = functions;
    plugin.function_count = sizeof functions / sizeof functions[0];
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static const pb_entry_t entry = {
    sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL, register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
