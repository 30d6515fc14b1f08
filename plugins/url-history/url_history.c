/*
 * url-history: an example plugin that uses the host's files service.
 *
 * It remembers every URL the application is asked to open in
 * Documents/history.log inside the application's container, and at launch
 * reads the file back and says how many URLs were opened before. It never
 * handles a URL itself (it answers false), so with a higher priority than the
 * deep-link router it sees every URL first and lets the router decide.
 *
 * What it shows:
 *   - reaching a host service: host->files (ABI 1.1), NULL when the host has
 *     no container (for example `plugboard list`);
 *   - container paths ("Documents/history.log"), never file-system paths;
 *   - host-allocated buffers released with files->free_buffer;
 *   - status codes plus files->last_error for the sentence to log;
 *   - appending as read + atomic write with PB_FILES_OVERWRITE;
 *   - observing a notification on the bus (ABI 1.3): at launch it observes
 *     com.example.network.status (which the network-monitor example posts)
 *     and logs each status; the host calls the observer on its dispatch
 *     thread, after the callback that posted it returned.
 *
 * Build: cc -std=c11 -shared -fPIC -fvisibility=hidden -I include url_history.c -o url-history.so
 */
#include <plugboard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const plugin_id = "com.example.url-history";
static const char *const history_path = "Documents/history.log";

/* The host table from init; valid until deinit. */
static const pb_host_t *host;

/* The files service, or NULL when the host offers none. A 1.1 plugin only
 * loads in a 1.1 host or newer, so the field is there; it may still be NULL. */
static const pb_files_t *files(void) {
    return host ? host->files : NULL;
}

static void logf_line(pb_log_level_t level, const char *format, const char *argument) {
    char line[512];
    snprintf(line, sizeof line, format, argument);
    host->log(host, plugin_id, level, line);
}

/* Logs the host's explanation of the last failed files call. */
static void log_failure(const char *what) {
    char reason[400];
    files()->last_error(host, reason, sizeof reason);
    char line[512];
    snprintf(line, sizeof line, "%s: %s", what, reason);
    host->log(host, plugin_id, PB_LOG_WARNING, line);
}

/* Logs a network status; the strings are the host's, valid during the call. */
static void network_status(void *ctx, const char *name, const char *payload_json, const char *sender_id) {
    (void)ctx; (void)name;
    char line[512];
    snprintf(line, sizeof line, "network status from %s: %s", sender_id, payload_json);
    host->log(host, plugin_id, PB_LOG_INFO, line);
}

/* Observes the network status, when the host has a bus (ABI 1.3). */
static void observe_network(void) {
    if (host->struct_size < offsetof(pb_host_t, notifications) + sizeof host->notifications) return;
    uint64_t token = 0; /* kept by nobody: the observation lasts until deinit */
    if (host->notifications->observe(host, plugin_id, "com.example.network.status", network_status, NULL, &token) != PB_OK) {
        host->log(host, plugin_id, PB_LOG_WARNING, "cannot observe the network status");
    }
}

/* Observes the network, counts the lines of the history and logs the last one. */
static bool did_finish_launching(void *ctx, const char *options, size_t options_len) {
    (void)ctx; (void)options; (void)options_len;
    observe_network();
    if (!files()) {
        host->log(host, plugin_id, PB_LOG_WARNING, "no files service: history is not kept");
        return true;
    }
    pb_buffer_t history = {0};
    pb_status_t status = files()->read(host, history_path, &history);
    if (status == PB_ERR_NOT_FOUND) {
        host->log(host, plugin_id, PB_LOG_INFO, "no history yet");
        return true;
    }
    if (status != PB_OK) {
        log_failure("cannot read the history");
        return true; /* a missing history is no reason to veto the launch */
    }
    size_t lines = 0;
    const char *last = NULL;
    for (size_t i = 0; i < history.size; i++) {
        if (history.data[i] == '\n') {
            lines++;
            history.data[i] = '\0'; /* the buffer is ours until free_buffer */
            if (i + 1 < history.size) last = (const char *)history.data + i + 1;
        }
    }
    char count[32];
    snprintf(count, sizeof count, "%zu", lines);
    logf_line(PB_LOG_INFO, "%s URL(s) opened before", count);
    if (lines > 0) logf_line(PB_LOG_INFO, "last: %s", last ? last : (const char *)history.data);
    files()->free_buffer(host, &history);
    return true;
}

/* Appends the URL to the history; never handles it. */
static bool open_url(void *ctx, const char *url, size_t url_len, const char *options, size_t options_len) {
    (void)ctx; (void)options; (void)options_len;
    if (!files()) return false;
    pb_buffer_t history = {0};
    pb_status_t status = files()->read(host, history_path, &history);
    if (status != PB_OK && status != PB_ERR_NOT_FOUND) {
        log_failure("cannot read the history");
        return false;
    }
    size_t size = history.size + url_len + 1;
    char *updated = malloc(size);
    if (!updated) {
        files()->free_buffer(host, &history);
        host->log(host, plugin_id, PB_LOG_ERROR, "out of memory");
        return false;
    }
    if (history.size) memcpy(updated, history.data, history.size);
    memcpy(updated + history.size, url, url_len);
    updated[size - 1] = '\n';
    files()->free_buffer(host, &history);
    if (files()->write(host, history_path, updated, size, PB_FILES_OVERWRITE) != PB_OK) {
        log_failure("cannot write the history");
    } else {
        logf_line(PB_LOG_INFO, "recorded %s", url);
    }
    free(updated);
    return false;
}

static const pb_launch_t launch = {
    .struct_size = sizeof(pb_launch_t),
    .did_finish_launching = did_finish_launching,
};

static const pb_open_url_t url_handling = {
    .struct_size = sizeof(pb_open_url_t),
    .open_url = open_url,
};

static bool init(const pb_host_t *h) {
    host = h;
    return true;
}

static void deinit(void) {
    host = NULL;
}

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin = {
        .struct_size = sizeof(pb_plugin_t),
        .priority = 50, /* above the router (10): see every URL before it is handled */
        .id = plugin_id,
        .name = "URL history",
        .version = "1.0.0",
        .launch = &launch,
        .open_url = &url_handling,
    };
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static const pb_entry_t entry = {
    .struct_size = sizeof(pb_entry_t),
    .abi_major = PB_ABI_VERSION_MAJOR,
    .abi_minor = PB_ABI_VERSION_MINOR,
    .init = init,
    .deinit = deinit,
    .register_plugins = register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    return &entry;
}
