/*
 * Test fixture: plugins that declare functions (ABI 1.2, plugboard/functions.h).
 *
 *   com.example.functions     one function per type in and out (each returns its
 *                             argument), narrow results with the high bits set
 *                             (the ffi_arg trap), many mixed arguments, strings and
 *                             buffers with and without `release`, `crash`, and
 *                             `crash_soon` (a thread's crash after it returned).
 *   com.example.badfunctions  one good function, `ok`, and a corpus of bad
 *                             declarations, each refused alone.
 *   com.example.oldfunctions  declares a function but a 1.1 struct_size: the host
 *                             must not read it.
 *   com.example.toomany       a function_count past the limit (the array is short:
 *                             the host must refuse before reading it).
 *   com.example.nullfunctions functions NULL with a function_count of 3.
 *
 * `released` counts the results the host released, so a test can check the rule.
 */
#define _POSIX_C_SOURCE 200809L
#include <plugboard.h>

#include <poll.h>
#include <pthread.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool flip(bool value) { return !value; }
static int8_t echo_int8(int8_t value) { return value; }
static int16_t echo_int16(int16_t value) { return value; }
static int32_t echo_int32(int32_t value) { return value; }
static int64_t echo_int64(int64_t value) { return value; }
static uint8_t echo_uint8(uint8_t value) { return value; }
static uint16_t echo_uint16(uint16_t value) { return value; }
static uint32_t echo_uint32(uint32_t value) { return value; }
static uint64_t echo_uint64(uint64_t value) { return value; }
static float echo_float(float value) { return value; }
static double echo_double(double value) { return value; }
static void *echo_pointer(void *value) { return value; }

/* Narrow results whose register holds more than the declared width. */
static int8_t minus_one(void) { return -1; }
static uint8_t two_hundred(void) { return 200; }
static int16_t int16_min(void) { return INT16_MIN; }
static bool truth(void) { return true; }
static int8_t negate_int8(int8_t value) { return (int8_t)-value; }
/* The low bits of a wide argument: the compiler may return the whole register, high bits and all. */
static int8_t low_int8(int64_t value) { return (int8_t)value; }
static uint8_t low_uint8(uint64_t value) { return (uint8_t)value; }
static int16_t low_int16(int64_t value) { return (int16_t)value; }
static bool low_bit(uint64_t value) { return value & 1; }

/* More arguments than registers, every width, both kinds of float. */
static double mixed(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f, int64_t g, uint64_t h,
                    float i, double j, int32_t k, double l) {
    return (double)a + b + c + d + e + f + (double)g + (double)h + i + j + k + l;
}

/* The example shape. */
static double weigh(int32_t count, double each, const char *label) {
    return count * each + (double)strlen(label);
}

static int released;
static void release_result(void *result) {
    released++;
    free(result);
}
static int32_t released_count(void) { return released; }

/* A copy of the argument, released by the host. */
static const char *echo_string(const char *value) {
    size_t size = strlen(value) + 1;
    char *copy = malloc(size);
    if (copy != NULL) memcpy(copy, value, size);
    return copy;
}

/* A static string: no release. */
static const char *greeting(void) { return "héllo, wörld"; }

/* A copy of the argument, released by the host (NULL data for an empty buffer). */
static pb_bytes_t echo_bytes(const uint8_t *data, size_t size) {
    pb_bytes_t result = {NULL, 0};
    if (size == 0) return result;
    uint8_t *copy = malloc(size);
    if (copy == NULL) return result;
    memcpy(copy, data, size);
    result.data = copy;
    result.size = size;
    return result;
}

/* The size and the byte sum of a buffer, then a separate argument. */
static uint64_t checksum(const uint8_t *data, size_t size, uint32_t seed) {
    uint64_t sum = seed;
    for (size_t i = 0; i < size; i++) sum = sum * 31 + data[i];
    return sum + size;
}

static int touches;
static void touch(void) { touches++; }
static int32_t touch_count(void) { return touches; }

static int32_t counted_calls;
static int32_t count_call(void) { return ++counted_calls; }

/* Blocks until `fd` is readable (1) or 60 s passed (0): a call the host's watchdog sees running. */
static int32_t wait_readable(int32_t fd) {
    struct pollfd entry = {fd, POLLIN, 0};
    return poll(&entry, 1, 60000) == 1;
}

static void crash(void) {
    volatile int *nowhere = NULL;
    *nowhere = 1;
}

/* 0, read when used: the compiler cannot drop a write through it as it may one through NULL. */
static volatile uintptr_t null_address;

static void *crash_later(void *unused) {
    (void)unused;
    struct timespec pause = {0, 100000000};
    nanosleep(&pause, NULL);
    *(volatile int *)null_address = 1;
    return NULL;
}

/* Returns at once; a thread of its own crashes the process 100 ms later, between calls. */
static void crash_soon(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, crash_later, NULL) == 0) pthread_detach(thread);
}

/* Results that break the rules. */
static const char *null_string(void) { return NULL; }
static const char *bad_utf8(void) { return "\xff\xfe"; }
static pb_bytes_t null_bytes_with_size(void) {
    pb_bytes_t result = {NULL, 3};
    return result;
}
static const uint8_t one_byte[1];
/* Sizes no buffer has: one Swift reads as negative, one too large to allocate. */
static pb_bytes_t wrapped_bytes(void) {
    pb_bytes_t result = {one_byte, (size_t)-5};
    return result;
}
static pb_bytes_t exabyte_bytes(void) {
    pb_bytes_t result = {one_byte, (size_t)1 << 62};
    return result;
}

/* The host, kept by init, for length_after_log and announce. */
static const pb_host_t *the_host;

/* Posts "com.example.functions.announced" and answers its status. */
static int32_t announce(void) {
    return the_host ? the_host->notifications->post(the_host, "com.example.functions", "com.example.functions.announced", "{}") : -100;
}

static bool init(const pb_host_t *host) {
    the_host = host;
    return true;
}

/* Logs "length_after_log" through the host, then measures its argument: a function that
   reaches back into the host while its argument is in use. */
static uint64_t length_after_log(const char *text) {
    if (the_host) the_host->log(the_host, "com.example.functions", PB_LOG_INFO, "length_after_log");
    return strlen(text);
}

#define FUNCTION(NAME, SIGNATURE, DOC) {sizeof(pb_function_t), #NAME, SIGNATURE, DOC, (void (*)(void))NAME, NULL}
#define RELEASED(NAME, SIGNATURE, DOC) {sizeof(pb_function_t), #NAME, SIGNATURE, DOC, (void (*)(void))NAME, release_result}

static const pb_function_t functions[] = {
    FUNCTION(flip, "bool (bool)", "Negates a bool."),
    FUNCTION(echo_int8, "int8 (int8)", NULL),
    FUNCTION(echo_int16, "int16 (int16)", NULL),
    FUNCTION(echo_int32, "int32 (int32)", NULL),
    FUNCTION(echo_int64, "int64 (int64)", NULL),
    FUNCTION(echo_uint8, "uint8 (uint8)", NULL),
    FUNCTION(echo_uint16, "uint16 (uint16)", NULL),
    FUNCTION(echo_uint32, "uint32 (uint32)", NULL),
    FUNCTION(echo_uint64, "uint64 (uint64)", NULL),
    FUNCTION(echo_float, "float (float)", NULL),
    FUNCTION(echo_double, "double (double)", NULL),
    FUNCTION(echo_pointer, "pointer (pointer)", NULL),
    FUNCTION(minus_one, "int8 ()", "-1 as an int8."),
    FUNCTION(two_hundred, "uint8 ()", "200 as a uint8."),
    FUNCTION(int16_min, "int16()", NULL),
    FUNCTION(truth, " bool\t( ) ", NULL),
    FUNCTION(negate_int8, "int8 (int8)", NULL),
    FUNCTION(low_int8, "int8 (int64)", NULL),
    FUNCTION(low_uint8, "uint8 (uint64)", NULL),
    FUNCTION(low_int16, "int16 (int64)", NULL),
    FUNCTION(low_bit, "bool (uint64)", NULL),
    FUNCTION(mixed, "double (int8, uint8, int16, uint16, int32, uint32, int64, uint64, float, double, int32, double)", NULL),
    FUNCTION(weigh, "double (int32, double, string)", "count * each + the label's length in bytes."),
    FUNCTION(released_count, "int32 ()", "How many results the host released."),
    RELEASED(echo_string, "string (string)", "A copy of the string, released by the host."),
    FUNCTION(greeting, "string ()", "A static string."),
    RELEASED(echo_bytes, "bytes (bytes)", "A copy of the buffer, released by the host."),
    FUNCTION(checksum, "uint64 (bytes, uint32)", NULL),
    FUNCTION(touch, "void ()", NULL),
    FUNCTION(touch_count, "int32 ()", NULL),
    FUNCTION(count_call, "int32 ()", "Counts its calls: 1, 2, 3…"),
    FUNCTION(length_after_log, "uint64 (string)", "Logs, then measures its argument."),
    FUNCTION(wait_readable, "bool (int32)", "Waits until the file descriptor is readable."),
    FUNCTION(crash, "void ()", "Writes through NULL."),
    FUNCTION(crash_soon, "void ()", "Writes through NULL on a thread of its own, 100 ms later."),
    FUNCTION(null_string, "string ()", NULL),
    FUNCTION(bad_utf8, "string ()", NULL),
    FUNCTION(null_bytes_with_size, "bytes ()", NULL),
    FUNCTION(wrapped_bytes, "bytes ()", NULL),
    FUNCTION(announce, "int32 ()", NULL),
    FUNCTION(exabyte_bytes, "bytes ()", NULL),
};

static int32_t ok(void) { return 42; }

static const pb_function_t bad_functions[] = {
    FUNCTION(ok, "int32 ()", "The one good function."),
    {sizeof(pb_function_t), "unknown_type", "double (int)", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "void_argument", "int32 (void)", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "trailing", "int32 () extra", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "no_parenthesis", "int32", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "dangling_comma", "int32 (int32,)", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "Bad-Name", "int32 ()", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "null_function", "int32 ()", NULL, NULL, NULL},
    {sizeof(pb_function_t), "null_signature", NULL, NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), NULL, "int32 ()", NULL, (void (*)(void))ok, NULL},
    {8, "too_small", "int32 ()", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "twice", "int32 ()", NULL, (void (*)(void))ok, NULL},
    {sizeof(pb_function_t), "twice", "int32 ()", NULL, (void (*)(void))ok, NULL},
};

static const pb_function_t old_functions[] = {
    FUNCTION(ok, "int32 ()", NULL),
};

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin = {0};
    plugin.struct_size = sizeof plugin;
    plugin.id = "com.example.functions";
    plugin.functions = functions;
    plugin.function_count = sizeof functions / sizeof functions[0];
    if (registrar->add_plugin(registrar, &plugin) != PB_OK) return false;

    plugin.id = "com.example.badfunctions";
    plugin.functions = bad_functions;
    plugin.function_count = sizeof bad_functions / sizeof bad_functions[0];
    if (registrar->add_plugin(registrar, &plugin) != PB_OK) return false;

    plugin.id = "com.example.toomany";
    plugin.functions = old_functions;
    plugin.function_count = 100000;
    if (registrar->add_plugin(registrar, &plugin) != PB_OK) return false;

    plugin.id = "com.example.nullfunctions";
    plugin.functions = NULL;
    plugin.function_count = 3;
    if (registrar->add_plugin(registrar, &plugin) != PB_OK) return false;

    plugin.struct_size = offsetof(pb_plugin_t, functions);
    plugin.id = "com.example.oldfunctions";
    plugin.functions = old_functions;
    plugin.function_count = 1;
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static const pb_entry_t entry = {
    sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL, register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
