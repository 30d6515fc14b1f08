/*
 * A test plugin whose behaviour is chosen at compile time with -D flags, so
 * every test case is a real .so built by the real compiler.
 *
 * Identity:     FIX_ID "a.b" (required unless FIX_NULL_ID), FIX_PRIORITY n,
 *               FIX_SECOND_ID "c.d" (adds a second plugin with the same vtables),
 *               FIX_NAME_BYTES n, FIX_VERSION_BYTES n (a name, a version of n bytes; the
 *               name's byte is FIX_NAME_BYTE, 'n' by default)
 * Concerns:     FIX_LAUNCH b (answer), FIX_OPEN_URL b (with FIX_OPEN_URL_HEX
 *               logging the URL's and the options' bytes in hex), FIX_ACTIVITY b,
 *               FIX_FETCH r (a PB_FETCH_* value) with FIX_FETCH_MODE
 *               (0 answer at once, 1 never, 2 twice, 3 from a thread after
 *               FIX_FETCH_DELAY_MS, 4 an invalid value), FIX_BROADCASTS
 *               (memory, protected data, app state, registration), FIX_TERMINATE
 * Misbehaviour: FIX_ENTRY_NULL, FIX_ABI_MAJOR n, FIX_ABI_MINOR n, FIX_ENTRY_SIZE n,
 *               FIX_PLUGIN_SIZE n, FIX_VTABLE_SIZE n (of the launch vtable),
 *               FIX_NULL_ID, FIX_INIT_FAILS, FIX_REGISTER_FAILS, FIX_NO_REGISTER,
 *               FIX_ADD_TWICE, FIX_NO_PLUGINS
 *
 * Every callback logs its event name through the host, so tests see which
 * plugins were really called, in which order.
 */
#define _POSIX_C_SOURCE 200809L
#include <plugboard.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const pb_host_t *host;

__attribute__((unused)) static void say(void *ctx, const char *event) {
    if (host) host->log(host, (const char *)ctx, PB_LOG_INFO, event);
}

#ifdef FIX_LAUNCH
static bool will_finish(void *ctx, const char *o, size_t n) { (void)o; (void)n; say(ctx, "will-finish-launching"); return FIX_LAUNCH; }
static bool did_finish(void *ctx, const char *o, size_t n) { (void)o; (void)n; say(ctx, "did-finish-launching"); return FIX_LAUNCH; }
#ifndef FIX_VTABLE_SIZE
#define FIX_VTABLE_SIZE sizeof(pb_launch_t)
#endif
static const pb_launch_t launch = {FIX_VTABLE_SIZE, will_finish, did_finish};
#endif

#ifdef FIX_OPEN_URL
#ifdef FIX_OPEN_URL_HEX
/* Appends the `n` bytes at `text` to `line` as hex: what the plugin was handed, byte for byte. */
static void append_hex(char *line, size_t size, const char *text, size_t n) {
    for (size_t i = 0; i < n && strlen(line) + 3 < size; i++) {
        snprintf(line + strlen(line), size - strlen(line), "%02x", (unsigned char)text[i]);
    }
}
#endif

static bool open_url(void *ctx, const char *url, size_t n, const char *o, size_t on) {
    (void)n; (void)o; (void)on;
    char line[512];
    snprintf(line, sizeof line, "open-url %s", url);
#ifdef FIX_OPEN_URL_HEX
    snprintf(line, sizeof line, "open-url hex ");
    append_hex(line, sizeof line, url, n);
    strncat(line, " ", sizeof line - strlen(line) - 1);
    append_hex(line, sizeof line, o, on);
#endif
    say(ctx, line);
    return FIX_OPEN_URL;
}
static const pb_open_url_t url_vtable = {sizeof(pb_open_url_t), open_url};
#endif

#ifdef FIX_ACTIVITY
static bool activity(void *ctx, const char *t, size_t tn, const char *u, size_t un) {
    (void)t; (void)tn; (void)u; (void)un;
    say(ctx, "continue-user-activity");
    return FIX_ACTIVITY;
}
static const pb_user_activity_t activity_vtable = {sizeof(pb_user_activity_t), activity};
#endif

#if defined(FIX_FETCH) || defined(FIX_BROADCASTS)
static void did_register(void *ctx, const uint8_t *t, size_t n) { (void)t; (void)n; say(ctx, "register-token"); }
static void did_fail(void *ctx, const char *e, size_t n) { (void)e; (void)n; say(ctx, "register-failed"); }
#endif

#ifdef FIX_FETCH
#ifndef FIX_FETCH_MODE
#define FIX_FETCH_MODE 0
#endif
#ifndef FIX_FETCH_DELAY_MS
#define FIX_FETCH_DELAY_MS 50
#endif
static void *answer_later(void *completion) {
    struct timespec delay = {FIX_FETCH_DELAY_MS / 1000, (FIX_FETCH_DELAY_MS % 1000) * 1000000L};
    nanosleep(&delay, NULL);
    const pb_fetch_completion_t *c = completion;
    c->complete(c, FIX_FETCH);
    return NULL;
}
static void did_receive(void *ctx, const char *json, size_t n, const pb_fetch_completion_t *c) {
    (void)json; (void)n;
    say(ctx, "remote-notification");
    switch (FIX_FETCH_MODE) {
    case 0: c->complete(c, FIX_FETCH); break;
    case 1: break;
    case 2: c->complete(c, FIX_FETCH); c->complete(c, FIX_FETCH); break;
    case 3: { pthread_t t; pthread_create(&t, NULL, answer_later, (void *)c); pthread_detach(t); break; }
    case 4: c->complete(c, 77); break;
    }
}
static const pb_remote_notifications_t push_vtable = {sizeof(pb_remote_notifications_t), did_register, did_fail, did_receive};
#elif defined(FIX_BROADCASTS)
static const pb_remote_notifications_t push_vtable = {sizeof(pb_remote_notifications_t), did_register, did_fail, NULL};
#endif

#ifdef FIX_BROADCASTS
static void memory_warning(void *ctx) { say(ctx, "memory-warning"); }
static void pd_will(void *ctx) { say(ctx, "protected-data-will-become-unavailable"); }
static void pd_did(void *ctx) { say(ctx, "protected-data-did-become-available"); }
static void active(void *ctx) { say(ctx, "did-become-active"); }
static void resign(void *ctx) { say(ctx, "will-resign-active"); }
static void background(void *ctx) { say(ctx, "did-enter-background"); }
static void foreground(void *ctx) { say(ctx, "will-enter-foreground"); }
static const pb_memory_t memory_vtable = {sizeof(pb_memory_t), memory_warning};
static const pb_protected_data_t pd_vtable = {sizeof(pb_protected_data_t), pd_will, pd_did};
static const pb_app_state_t state_vtable = {sizeof(pb_app_state_t), active, resign, background, foreground};
#endif

#ifdef FIX_TERMINATE
static void terminate(void *ctx) { say(ctx, "will-terminate"); }
static const pb_termination_t termination_vtable = {sizeof(pb_termination_t), terminate};
#endif

#ifndef FIX_PRIORITY
#define FIX_PRIORITY 0
#endif
#ifndef FIX_PLUGIN_SIZE
#define FIX_PLUGIN_SIZE sizeof(pb_plugin_t)
#endif

__attribute__((unused)) static pb_plugin_t describe(const char *id) {
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = FIX_PLUGIN_SIZE;
    plugin.priority = FIX_PRIORITY;
    plugin.id = id;
    plugin.name = "Fixture";
    plugin.version = "1.0";
    /* A name or a version of exactly that many bytes: 'n' and 'v' repeated. */
#ifdef FIX_NAME_BYTES
    static char long_name[FIX_NAME_BYTES + 1];
#ifndef FIX_NAME_BYTE
#define FIX_NAME_BYTE 'n'
#endif
    memset(long_name, FIX_NAME_BYTE, FIX_NAME_BYTES);
    plugin.name = long_name;
#endif
#ifdef FIX_VERSION_BYTES
    static char long_version[FIX_VERSION_BYTES + 1];
    memset(long_version, 'v', FIX_VERSION_BYTES);
    plugin.version = long_version;
#endif
    plugin.ctx = (void *)id;
#ifdef FIX_LAUNCH
    plugin.launch = &launch;
#endif
#ifdef FIX_OPEN_URL
    plugin.open_url = &url_vtable;
#endif
#ifdef FIX_ACTIVITY
    plugin.user_activity = &activity_vtable;
#endif
#if defined(FIX_FETCH) || defined(FIX_BROADCASTS)
    plugin.remote_notifications = &push_vtable;
#endif
#ifdef FIX_BROADCASTS
    plugin.memory = &memory_vtable;
    plugin.protected_data = &pd_vtable;
    plugin.app_state = &state_vtable;
#endif
#ifdef FIX_TERMINATE
    plugin.termination = &termination_vtable;
#endif
    return plugin;
}

static bool init(const pb_host_t *h) {
    host = h;
#ifdef FIX_INIT_FAILS
    h->log(h, NULL, PB_LOG_ERROR, "the fixture's init was told to fail");
    return false;
#else
    return true;
#endif
}

static void deinit(void) {
    if (host) host->log(host, NULL, PB_LOG_INFO, "deinit");
    host = NULL;
}

__attribute__((unused)) static bool register_plugins(const pb_registrar_t *registrar) {
#ifdef FIX_REGISTER_FAILS
    registrar->host->log(registrar->host, NULL, PB_LOG_ERROR, "the fixture's register was told to fail");
    return false;
#endif
#ifndef FIX_NO_PLUGINS
#ifdef FIX_NULL_ID
    pb_plugin_t plugin = describe(NULL);
#else
    pb_plugin_t plugin = describe(FIX_ID);
#endif
    registrar->add_plugin(registrar, &plugin);
#ifdef FIX_ADD_TWICE
    registrar->add_plugin(registrar, &plugin);
#endif
#ifdef FIX_SECOND_ID
    pb_plugin_t second = describe(FIX_SECOND_ID);
    registrar->add_plugin(registrar, &second);
#endif
#endif
    (void)registrar;
    return true;
}

#ifndef FIX_ABI_MAJOR
#define FIX_ABI_MAJOR PB_ABI_VERSION_MAJOR
#endif
#ifndef FIX_ABI_MINOR
#define FIX_ABI_MINOR PB_ABI_VERSION_MINOR
#endif
#ifndef FIX_ENTRY_SIZE
#define FIX_ENTRY_SIZE sizeof(pb_entry_t)
#endif

__attribute__((unused)) static const pb_entry_t entry = {
    FIX_ENTRY_SIZE, FIX_ABI_MAJOR, FIX_ABI_MINOR, init, deinit,
#ifdef FIX_NO_REGISTER
    NULL,
#else
    register_plugins,
#endif
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
#ifdef FIX_ENTRY_NULL
    return NULL;
#else
    return &entry;
#endif
}
