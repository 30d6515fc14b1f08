/*
 * The plugin the live-plugin tests drop into, replace in and remove from a running host: it
 * counts the URLs it opened, and its count survives a reload through saved state.
 *
 * open_url logs "count N (VERSION)"; will-finish-launching, did-finish-launching and every
 * app-state event log their name; restore_state logs "restored count N (saved by VERSION)".
 * Its state is the text "count N".
 *
 * Identity: LIVE_ID (default "com.example.live"), LIVE_VERSION (default "1.0"); LIVE_SECOND_ID
 * registers a second plugin of that id (no concern).
 * A broken next version, by macro: LIVE_CRASH_IN_INIT (SIGSEGV in init), LIVE_HANG_IN_INIT (init
 * never returns), LIVE_REFUSE (init returns false, saying why), LIVE_CRASH_IN_RESTORE (SIGSEGV in restore_state), LIVE_VETO
 * (will-finish-launching answers false).
 * LIVE_OBSERVE_IN_DEINIT "name": deinit observes that notification, its observer logging "noticed after deinit".
 */
#include <plugboard.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LIVE_ID
#define LIVE_ID "com.example.live"
#endif
#ifndef LIVE_VERSION
#define LIVE_VERSION "1.0"
#endif

static const pb_host_t *host;
static long count;

static void say(const char *message) {
    host->log(host, LIVE_ID, PB_LOG_INFO, message);
}

static bool open_url(void *ctx, const char *url, size_t url_length, const char *options, size_t options_length) {
    (void)ctx; (void)url; (void)url_length; (void)options; (void)options_length;
    char line[64];
    snprintf(line, sizeof line, "count %ld (%s)", ++count, LIVE_VERSION);
    say(line);
    return true;
}

static bool will_finish_launching(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    say("will-finish-launching");
#ifdef LIVE_VETO
    return false;
#else
    return true;
#endif
}

static bool did_finish_launching(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    say("did-finish-launching");
    return true;
}

static void did_become_active(void *ctx) { (void)ctx; say("did-become-active"); }
static void will_resign_active(void *ctx) { (void)ctx; say("will-resign-active"); }
static void did_enter_background(void *ctx) { (void)ctx; say("did-enter-background"); }
static void will_enter_foreground(void *ctx) { (void)ctx; say("will-enter-foreground"); }

static pb_status_t save_state(void *ctx, pb_bytes_t *out) {
    (void)ctx;
    char *text = malloc(32);
    if (!text) return PB_ERR_IO;
    out->size = (size_t)snprintf(text, 32, "count %ld", count);
    out->data = (const uint8_t *)text;
    return PB_OK;
}

static void release_state(void *ctx, const uint8_t *data, size_t size) {
    (void)ctx; (void)size;
    free((void *)data);
}

static pb_status_t restore_state(void *ctx, const char *saved_version, const uint8_t *data, size_t size) {
    (void)ctx;
#ifdef LIVE_CRASH_IN_RESTORE
    raise(SIGSEGV);
#endif
    char text[64] = {0};
    if (size >= sizeof text || sscanf(memcpy(text, data, size), "count %ld", &count) != 1) return PB_ERR_INVALID_ARGUMENT;
    char line[160];
    snprintf(line, sizeof line, "restored count %ld (saved by %s)", count, saved_version);
    say(line);
    return PB_OK;
}

static const pb_launch_t launch = {sizeof(pb_launch_t), will_finish_launching, did_finish_launching};
static const pb_open_url_t urls = {sizeof(pb_open_url_t), open_url};
static const pb_app_state_t app_state = {sizeof(pb_app_state_t), did_become_active, will_resign_active,
                                         did_enter_background, will_enter_foreground};
static const pb_saved_state_t saved_state = {sizeof(pb_saved_state_t), save_state, release_state, restore_state};

static bool init(const pb_host_t *given) {
    host = given;
#ifdef LIVE_CRASH_IN_INIT
    raise(SIGSEGV);
#endif
#ifdef LIVE_HANG_IN_INIT
    for (;;) pause();
#endif
#ifdef LIVE_REFUSE
    host->log(host, NULL, PB_LOG_ERROR, "this version refuses to start");
    return false;
#endif
    return true;
}

#ifdef LIVE_OBSERVE_IN_DEINIT
static void noticed(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)name; (void)payload; (void)sender;
    say("noticed after deinit");
}
#endif

static void deinit(void) {
#ifdef LIVE_OBSERVE_IN_DEINIT
    uint64_t token;
    host->notifications->observe(host, LIVE_ID, LIVE_OBSERVE_IN_DEINIT, noticed, NULL, &token);
#endif
}

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.id = LIVE_ID;
    plugin.version = LIVE_VERSION;
    plugin.launch = &launch;
    plugin.open_url = &urls;
    plugin.app_state = &app_state;
    plugin.saved_state = &saved_state;
#ifdef LIVE_SECOND_ID
    pb_plugin_t second;
    memset(&second, 0, sizeof second);
    second.struct_size = sizeof second;
    second.id = LIVE_SECOND_ID;
    second.version = LIVE_VERSION;
    if (registrar->add_plugin(registrar, &second) != PB_OK) return false;
#endif
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, deinit, register_plugins};
    return &entry;
}
