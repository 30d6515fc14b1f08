/*
 * A well-behaved saved-state plugin for the saved-state tests: it counts the URLs it
 * opened, over every run. Its state is the text "count N"; restore_state logs
 * "restored count N (saved by VERSION)" and takes the count back; each open_url adds
 * one and logs "count N"; save_state gives "count N" in a malloc'ed buffer that
 * release_state frees.
 *
 * Identity: STATE_ID (default "com.example.counter"), STATE_VERSION (default "1.0").
 */
#include <plugboard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STATE_ID
#define STATE_ID "com.example.counter"
#endif
#ifndef STATE_VERSION
#define STATE_VERSION "1.0"
#endif

static const pb_host_t *host;
static long count;

static void say(const char *message) {
    host->log(host, STATE_ID, PB_LOG_INFO, message);
}

static bool open_url(void *ctx, const char *url, size_t url_length, const char *options, size_t options_length) {
    (void)ctx; (void)url; (void)url_length; (void)options; (void)options_length;
    char line[64];
    snprintf(line, sizeof line, "count %ld", ++count);
    say(line);
    return true;
}

static pb_status_t save_state(void *ctx, pb_bytes_t *out) {
    (void)ctx;
    char *text = malloc(32);
    if (!text) return PB_ERR_IO;
    int length = snprintf(text, 32, "count %ld", count);
    out->data = (const uint8_t *)text;
    out->size = (size_t)length;
    return PB_OK;
}

static void release_state(void *ctx, const uint8_t *data, size_t size) {
    (void)ctx; (void)size;
    free((void *)data);
}

static pb_status_t restore_state(void *ctx, const char *saved_version, const uint8_t *data, size_t size) {
    (void)ctx;
    char text[64] = {0};
    if (size >= sizeof text || sscanf(memcpy(text, data, size), "count %ld", &count) != 1) return PB_ERR_INVALID_ARGUMENT;
    char line[160];
    snprintf(line, sizeof line, "restored count %ld (saved by %s)", count, saved_version);
    say(line);
    return PB_OK;
}

static const pb_open_url_t urls = {sizeof(pb_open_url_t), open_url};
static const pb_saved_state_t saved_state = {sizeof(pb_saved_state_t), save_state, release_state, restore_state};

static bool init(const pb_host_t *given) {
    host = given;
    return true;
}

static void deinit(void) {}

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.id = STATE_ID;
    plugin.version = STATE_VERSION;
    plugin.open_url = &urls;
    plugin.saved_state = &saved_state;
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, deinit, register_plugins};
    return &entry;
}
