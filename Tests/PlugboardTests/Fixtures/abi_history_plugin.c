/*
 * A plugin that uses what its ABI minor offers, compiled against the public headers of each
 * released minor (Tests/PlugboardTests/Fixtures/abi-history/1.N) and loaded by today's host:
 *
 *   1.0  launch, open_url, memory warning; the log service
 *   1.1  the files service: open_url writes Documents/abi.txt and reads it back
 *   1.2  a function, `twice: int32 (int32)`, called by open_url through `invoke`
 *   1.3  saved state (a count) and the bus: it observes com.example.abi.ping at launch and
 *        posts it in open_url
 *   1.4  a prepared invocation: open_url prepares `twice` once and calls it twice, setting
 *        its argument between the calls
 *
 * Every structure the host reads (the entry record, pb_plugin_t, each vtable, the function
 * array) ends exactly where an inaccessible page begins: a host that reads past the size the
 * plugin was compiled with crashes the process, and the test sees it.
 *
 * ABI_CLAIM_MINOR, when defined, is the minor the entry record declares (a plugin built for a
 * newer minor than the host).
 */
#define _DEFAULT_SOURCE
#include <plugboard.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ID "com.example.abi-history"
#ifndef ABI_CLAIM_MINOR
#define ABI_CLAIM_MINOR PB_ABI_VERSION_MINOR
#endif

static const pb_host_t *host;

static void say(const char *message) { host->log(host, ID, PB_LOG_INFO, message); }

/* `size` bytes whose end touches an inaccessible page, holding a copy of `source`. */
static void *guarded(const void *source, size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (size + page - 1) / page * page;
    unsigned char *base = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || mprotect(base + span, page, PROT_NONE) != 0) return NULL;
    return memcpy(base + span - size, source, size);
}

static bool will_finish_launching(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    return true;
}

#if PB_ABI_VERSION_MINOR >= 3
static long count;

static void received(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)payload; (void)sender;
    char line[128];
    snprintf(line, sizeof line, "bus: received %s", name);
    say(line);
}
#endif

static bool did_finish_launching(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    char line[64];
    snprintf(line, sizeof line, "launched, built for 1.%u", (unsigned)PB_ABI_VERSION_MINOR);
    say(line);
#if PB_ABI_VERSION_MINOR >= 3
    uint64_t token = 0;
    if (host->notifications->observe(host, ID, "com.example.abi.ping", received, NULL, &token) != PB_OK) say("bus: observe failed");
#endif
    return true;
}

static bool open_url(void *ctx, const char *url, size_t url_length, const char *options, size_t options_length) {
    (void)ctx; (void)url; (void)url_length; (void)options; (void)options_length;
    say("open-url");
#if PB_ABI_VERSION_MINOR >= 1
    char text[32];
    int written = snprintf(text, sizeof text, "minor %u", (unsigned)PB_ABI_VERSION_MINOR);
    pb_buffer_t back = {0};
    if (host->files && host->files->write(host, "Documents/abi.txt", text, (size_t)written, PB_FILES_OVERWRITE) == PB_OK
        && host->files->read(host, "Documents/abi.txt", &back) == PB_OK) {
        char line[64];
        snprintf(line, sizeof line, "files: %s", (const char *)back.data);
        say(line);
        host->files->free_buffer(host, &back);
    } else {
        say("files: failed");
    }
#endif
#if PB_ABI_VERSION_MINOR >= 2
    pb_value_t argument;
    memset(&argument, 0, sizeof argument);
    argument.kind = PB_VALUE_INT;
    argument.integer = 21;
    pb_value_t result;
    memset(&result, 0, sizeof result);
    char error[128] = {0};
    char line[160];
    if (host->invoke(host, ID ".twice", &argument, 1, &result, error, sizeof error) == PB_OK) {
        snprintf(line, sizeof line, "invoke: %lld", (long long)result.integer);
        host->release_value(host, &result);
    } else {
        snprintf(line, sizeof line, "invoke failed: %s", error);
    }
    say(line);
#endif
#if PB_ABI_VERSION_MINOR >= 3
    count += 1;
    host->notifications->post(host, ID, "com.example.abi.ping", "{}");
#endif
#if PB_ABI_VERSION_MINOR >= 4
    pb_prepared_invoke_t *prepared = NULL;
    pb_value_t first, second;
    memset(&first, 0, sizeof first);
    memset(&second, 0, sizeof second);
    if (host->prepare_invoke(host, ID ".twice", &argument, 1, &prepared, error, sizeof error) == PB_OK
        && host->call_prepared(host, prepared, &first, error, sizeof error) == PB_OK
        && (argument.integer = 5, host->set_prepared_argument(host, prepared, 0, &argument, error, sizeof error)) == PB_OK
        && host->call_prepared(host, prepared, &second, error, sizeof error) == PB_OK) {
        snprintf(line, sizeof line, "prepared: %lld %lld", (long long)first.integer, (long long)second.integer);
    } else {
        snprintf(line, sizeof line, "prepared failed: %s", error);
    }
    host->release_prepared(host, prepared);
    say(line);
#endif
    return true;
}

static void memory_warning(void *ctx) { (void)ctx; say("memory-warning"); }

#if PB_ABI_VERSION_MINOR >= 2
static int32_t twice(int32_t value) { return value * 2; }
#endif

#if PB_ABI_VERSION_MINOR >= 3
static pb_status_t save_state(void *ctx, pb_bytes_t *out) {
    (void)ctx;
    static char text[32];
    out->size = (size_t)snprintf(text, sizeof text, "count %ld", count);
    out->data = (const uint8_t *)text;
    return PB_OK;
}

static void release_state(void *ctx, const uint8_t *data, size_t size) { (void)ctx; (void)data; (void)size; }

static pb_status_t restore_state(void *ctx, const char *saved_version, const uint8_t *data, size_t size) {
    (void)ctx; (void)saved_version;
    char text[32] = {0};
    if (size >= sizeof text || sscanf(memcpy(text, data, size), "count %ld", &count) != 1) return PB_ERR_INVALID_ARGUMENT;
    char line[64];
    snprintf(line, sizeof line, "restored count %ld", count);
    say(line);
    return PB_OK;
}
#endif

static bool init(const pb_host_t *given) {
    host = given;
    return true;
}

static void deinit(void) {}

static bool register_plugins(const pb_registrar_t *registrar) {
    static const pb_launch_t launch = {sizeof(pb_launch_t), will_finish_launching, did_finish_launching};
    static const pb_open_url_t urls = {sizeof(pb_open_url_t), open_url};
    static const pb_memory_t memory = {sizeof(pb_memory_t), memory_warning};
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.id = ID;
    plugin.version = "1.0";
    plugin.launch = guarded(&launch, sizeof launch);
    plugin.open_url = guarded(&urls, sizeof urls);
    plugin.memory = guarded(&memory, sizeof memory);
#if PB_ABI_VERSION_MINOR >= 2
    pb_function_t function;
    memset(&function, 0, sizeof function);
    function.struct_size = sizeof function;
    function.name = "twice";
    function.signature = "int32 (int32)";
    function.doc = "Doubles its argument.";
    function.function = (void (*)(void))twice;
    plugin.functions = guarded(&function, sizeof function);
    plugin.function_count = 1;
#endif
#if PB_ABI_VERSION_MINOR >= 3
    static const pb_saved_state_t saved = {sizeof(pb_saved_state_t), save_state, release_state, restore_state};
    plugin.saved_state = guarded(&saved, sizeof saved);
#endif
    const pb_plugin_t *placed = guarded(&plugin, sizeof plugin);
    return placed && registrar->add_plugin(registrar, placed) == PB_OK;
}

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, ABI_CLAIM_MINOR, init, deinit, register_plugins};
    static const pb_entry_t *placed;
    if (!placed) placed = guarded(&entry, sizeof entry);
    return placed;
}
