/*
 * app-lifecycle-pair: ONE library that registers TWO Plugboard plugins, each
 * with its own state (`ctx`):
 *
 *   com.example.session-tracker  follows the application state (active,
 *                                inactive, background, foreground), counts the
 *                                transitions and logs a summary at termination;
 *                                it counts the sessions across runs with saved
 *                                state (ABI 1.3, events/saved-state.h).
 *   com.example.launch-guard     votes on launch (it vetoes a launch in safe
 *                                mode) and logs protected-data changes.
 *
 * What this file adds to plugins/deeplink-router/deeplink_router.c:
 *
 *   - `init` allocates per-plugin state and may FAIL: if allocation fails it
 *     logs an error and returns false, and the host refuses the library (the
 *     error appears in the load report);
 *   - `deinit` frees that state. It takes no argument, so the library keeps
 *     its allocations in static variables to find them again;
 *   - each descriptor's `ctx` points to its plugin's state, and the host hands
 *     it back as the first argument of every callback of that plugin;
 *   - saved state: the host asks for bytes after will-terminate and hands them
 *     back before will-finish-launching on the next run (the memento pattern);
 *     run the demo twice and the session number grows.
 *
 * Build it (from the repository root):
 *
 *   cc -std=c11 -Wall -Wextra -pedantic -O2 -shared -fPIC -fvisibility=hidden \
 *      -I include -o app-lifecycle-pair.so \
 *      plugins/app-lifecycle-pair/app_lifecycle_pair.c
 */
#include <plugboard.h>

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf, sscanf, vsnprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* memcpy, strstr, strlen, strncmp */

#define TRACKER_ID "com.example.session-tracker"
#define GUARD_ID "com.example.launch-guard"

/* ------------------------------------------------------------------------ */
/* Host services and library state                                          */
/* ------------------------------------------------------------------------ */

/* The state of each plugin. One instance per plugin, allocated in `init`. */
typedef struct session_tracker {
    const char *state;            /* a string literal: "inactive", "active", ... */
    unsigned transitions;         /* all state changes seen */
    unsigned became_active;       /* did_become_active calls */
    unsigned resigned_active;     /* will_resign_active calls */
    unsigned entered_background;  /* did_enter_background calls */
    unsigned entering_foreground; /* will_enter_foreground calls */
    unsigned sessions;            /* runs so far, this one included (saved state) */
    char saved[32];               /* the text save_state hands over: "sessions N" */
} session_tracker_t;

typedef struct launch_guard {
    bool protected_data_available;   /* true until the system locks it */
    unsigned protected_data_changes; /* both directions */
} launch_guard_t;

/* Everything `init` acquires, kept so that `deinit` can release it. All
 * callbacks run on the host's dispatch thread, one at a time: no locks. */
static const pb_host_t *g_host = NULL;
static session_tracker_t *g_tracker = NULL;
static launch_guard_t *g_guard = NULL;

/* With gcc and clang, check the format string of log_msg like printf's. */
#if defined(__GNUC__)
#  define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#  define PRINTF_LIKE(f, a)
#endif
static void log_msg(const char *plugin_id, pb_log_level_t level, const char *format, ...) PRINTF_LIKE(3, 4);

/* printf-style logging through `host->log`. `plugin_id` is one of our two ids,
 * or NULL for a message of the library as a whole. */
static void log_msg(const char *plugin_id, pb_log_level_t level, const char *format, ...)
{
    char message[512];
    va_list args;

    if (g_host == NULL) {
        return;
    }
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    g_host->log(g_host, plugin_id, level, message);
}

/* ------------------------------------------------------------------------ */
/* Plugin 1: com.example.session-tracker                                    */
/* ------------------------------------------------------------------------ */

/* Records one transition and logs it. */
static void tracker_move(session_tracker_t *tracker, const char *to, unsigned *counter)
{
    tracker->transitions++;
    (*counter)++;
    log_msg(TRACKER_ID, PB_LOG_INFO, "state %s -> %s (transition %u)", tracker->state, to,
            tracker->transitions);
    tracker->state = to;
}

/* Each callback turns `ctx` back into the plugin's state. The host passes
 * exactly the `ctx` we registered, so it is never NULL here; the check costs
 * nothing and keeps a mistake (say, registering with .ctx = NULL) harmless. */
static void tracker_did_become_active(void *ctx)
{
    session_tracker_t *tracker = ctx;
    if (tracker != NULL) {
        tracker_move(tracker, "active", &tracker->became_active);
    }
}

static void tracker_will_resign_active(void *ctx)
{
    session_tracker_t *tracker = ctx;
    if (tracker != NULL) {
        tracker_move(tracker, "inactive", &tracker->resigned_active);
    }
}

static void tracker_did_enter_background(void *ctx)
{
    session_tracker_t *tracker = ctx;
    if (tracker != NULL) {
        tracker_move(tracker, "background", &tracker->entered_background);
    }
}

static void tracker_will_enter_foreground(void *ctx)
{
    session_tracker_t *tracker = ctx;
    if (tracker != NULL) {
        tracker_move(tracker, "foreground", &tracker->entering_foreground);
    }
}

static const pb_app_state_t tracker_app_state_vtable = {
    .struct_size = sizeof(pb_app_state_t),
    .did_become_active = tracker_did_become_active,
    .will_resign_active = tracker_will_resign_active,
    .did_enter_background = tracker_did_enter_background,
    .will_enter_foreground = tracker_will_enter_foreground,
};

/* The session starts when launching is done. We never veto: return true. */
static bool tracker_did_finish_launching(void *ctx, const char *options_json, size_t options_len)
{
    session_tracker_t *tracker = ctx;
    (void)options_json;
    (void)options_len;
    if (tracker != NULL) {
        tracker->sessions += 1;
        log_msg(TRACKER_ID, PB_LOG_INFO, "session %u started, state %s", tracker->sessions, tracker->state);
    }
    return true;
}

static const pb_launch_t tracker_launch_vtable = {
    .struct_size = sizeof(pb_launch_t),
    .will_finish_launching = NULL, /* NULL means "true" */
    .did_finish_launching = tracker_did_finish_launching,
};

/* Termination: log what the session looked like. (The state is freed later,
 * in `deinit`, not here: termination is an event, not the end of the library.) */
static void tracker_will_terminate(void *ctx)
{
    const session_tracker_t *tracker = ctx;
    if (tracker == NULL) {
        return;
    }
    log_msg(TRACKER_ID, PB_LOG_INFO,
            "session over after %u transitions (%u active, %u resign, %u background, "
            "%u foreground), last state %s",
            tracker->transitions, tracker->became_active, tracker->resigned_active,
            tracker->entered_background, tracker->entering_foreground, tracker->state);
}

static const pb_termination_t tracker_termination_vtable = {
    .struct_size = sizeof(pb_termination_t),
    .will_terminate = tracker_will_terminate,
};

/* Saved state: the text "sessions N". The bytes stay the plugin's (in the
 * tracker, valid until the next save), so release_state is NULL. */
static pb_status_t tracker_save_state(void *ctx, pb_bytes_t *out)
{
    session_tracker_t *tracker = ctx;
    if (tracker == NULL) {
        return PB_ERR_WRONG_STATE;
    }
    int length = snprintf(tracker->saved, sizeof tracker->saved, "sessions %u", tracker->sessions);
    out->data = (const uint8_t *)tracker->saved;
    out->size = (size_t)length;
    return PB_OK;
}

/* The host's bytes are not NUL-terminated and only valid during the call: copy
 * them, parse, and refuse what this plugin never wrote. */
static pb_status_t tracker_restore_state(void *ctx, const char *saved_version, const uint8_t *data, size_t size)
{
    session_tracker_t *tracker = ctx;
    char text[32];
    unsigned sessions = 0;
    char extra = 0;
    if (tracker == NULL || size >= sizeof text) {
        return PB_ERR_INVALID_ARGUMENT;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    if (sscanf(text, "sessions %u%c", &sessions, &extra) != 1) {
        return PB_ERR_INVALID_ARGUMENT;
    }
    tracker->sessions = sessions;
    log_msg(TRACKER_ID, PB_LOG_INFO, "restored %u earlier session(s), saved by version %s", sessions, saved_version);
    return PB_OK;
}

static const pb_saved_state_t tracker_saved_state_vtable = {
    .struct_size = sizeof(pb_saved_state_t),
    .save_state = tracker_save_state,
    .release_state = NULL,
    .restore_state = tracker_restore_state,
};

/* ------------------------------------------------------------------------ */
/* Plugin 2: com.example.launch-guard                                       */
/* ------------------------------------------------------------------------ */

/* JSON allows exactly these four whitespace characters. */
static bool is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Returns true if `json` contains `"key"`, a colon and `true`, with optional
 * whitespace in between: `{"safe-mode":true}` or `{ "safe-mode" : true }`.
 *
 * This is deliberately NOT a JSON parser, to keep the example short: it would
 * also match inside a nested object or a string value. Use a real JSON parser
 * in a real plugin. Every string the host passes is NUL-terminated, which is
 * what makes strstr safe here.
 */
static bool json_flag_is_true(const char *json, const char *quoted_key)
{
    const char *found = strstr(json, quoted_key);

    while (found != NULL) {
        const char *p = found + strlen(quoted_key);
        while (is_json_space(*p)) {
            p++;
        }
        if (*p == ':') {
            p++;
            while (is_json_space(*p)) {
                p++;
            }
            if (strncmp(p, "true", 4) == 0) {
                return true;
            }
        }
        found = strstr(found + 1, quoted_key);
    }
    return false;
}

/*
 * Launch is a vote: the host asks every plugin with a launch vtable and ANDs
 * the answers; a false vetoes the launch and the host reports which plugin
 * said no. This guard vetoes a launch whose options contain
 * "safe-mode": true, a stand-in for any precondition a real plugin checks
 * before the application may start (a config file, a data version, ...).
 */
static bool guard_will_finish_launching(void *ctx, const char *options_json, size_t options_len)
{
    (void)ctx; /* the decision needs only the options */
    (void)options_len;
    if (json_flag_is_true(options_json, "\"safe-mode\"")) {
        log_msg(GUARD_ID, PB_LOG_WARNING, "launch options ask for safe mode: vetoing the launch");
        return false;
    }
    log_msg(GUARD_ID, PB_LOG_INFO, "launch options %s: no safe mode, launch allowed",
            options_json);
    return true;
}

static const pb_launch_t guard_launch_vtable = {
    .struct_size = sizeof(pb_launch_t),
    .will_finish_launching = guard_will_finish_launching,
    .did_finish_launching = NULL, /* nothing more to check: "true" */
};

/* Records a protected-data change and logs it. */
static void guard_set_protected_data(launch_guard_t *guard, bool available)
{
    guard->protected_data_changes++;
    log_msg(GUARD_ID, PB_LOG_INFO, "protected data %s -> %s (change %u)%s",
            guard->protected_data_available ? "available" : "locked",
            available ? "available" : "locked", guard->protected_data_changes,
            available ? "" : ": closing protected files");
    guard->protected_data_available = available;
}

static void guard_protected_data_will_become_unavailable(void *ctx)
{
    launch_guard_t *guard = ctx;
    if (guard != NULL) {
        guard_set_protected_data(guard, false);
    }
}

static void guard_protected_data_did_become_available(void *ctx)
{
    launch_guard_t *guard = ctx;
    if (guard != NULL) {
        guard_set_protected_data(guard, true);
    }
}

static const pb_protected_data_t guard_protected_data_vtable = {
    .struct_size = sizeof(pb_protected_data_t),
    .will_become_unavailable = guard_protected_data_will_become_unavailable,
    .did_become_available = guard_protected_data_did_become_available,
};

/* ------------------------------------------------------------------------ */
/* The library: init, register_plugins, deinit                              */
/* ------------------------------------------------------------------------ */

/* Releases whatever `init` allocated. Safe to call twice: free(NULL) is a
 * no-op and the pointers are reset. */
static void pair_free_state(void)
{
    free(g_tracker);
    g_tracker = NULL;
    free(g_guard);
    g_guard = NULL;
}

/* Allocates the state of both plugins. If that fails, log why at ERROR and
 * return false: the host then refuses the library, shows the error in its
 * load report and does NOT call `deinit`, so clean up here. */
static bool pair_init(const pb_host_t *host)
{
    g_host = host;
    g_tracker = calloc(1, sizeof *g_tracker);
    g_guard = calloc(1, sizeof *g_guard);
    if (g_tracker == NULL || g_guard == NULL) {
        log_msg(NULL, PB_LOG_ERROR, "out of memory allocating the plugins' state");
        pair_free_state();
        g_host = NULL;
        return false;
    }
    g_tracker->state = "inactive";
    g_guard->protected_data_available = true;
    return true;
}

/* No callback runs once `deinit` starts, so the state can go. */
static void pair_deinit(void)
{
    pair_free_state();
    g_host = NULL;
}

/* Two descriptors, two calls to add_plugin. Each gets its own ctx. If either
 * is refused we return false, and the host uses none of the library's
 * plugins; `deinit` still runs later (init succeeded) and frees the state. */
static bool pair_register_plugins(const pb_registrar_t *registrar)
{
    pb_plugin_t tracker = {
        .struct_size = sizeof(pb_plugin_t),
        .priority = 0,
        .id = TRACKER_ID,
        .name = "Session tracker",
        .version = "1.0.0",
        .ctx = g_tracker,
        .launch = &tracker_launch_vtable,
        .app_state = &tracker_app_state_vtable,
        .termination = &tracker_termination_vtable,
        .saved_state = &tracker_saved_state_vtable,
    };
    pb_plugin_t guard = {
        .struct_size = sizeof(pb_plugin_t),
        /* Every plugin is asked about launch anyway; a higher priority only
         * means the guard is asked (and logs) first. */
        .priority = 100,
        .id = GUARD_ID,
        .name = "Launch guard",
        .version = "1.0.0",
        .ctx = g_guard,
        .launch = &guard_launch_vtable,
        .protected_data = &guard_protected_data_vtable,
    };
    pb_status_t status;

    status = registrar->add_plugin(registrar, &tracker);
    if (status != PB_OK) {
        log_msg(NULL, PB_LOG_ERROR, "add_plugin(%s) failed with status %d", TRACKER_ID,
                (int)status);
        return false;
    }
    status = registrar->add_plugin(registrar, &guard);
    if (status != PB_OK) {
        log_msg(NULL, PB_LOG_ERROR, "add_plugin(%s) failed with status %d", GUARD_ID,
                (int)status);
        return false;
    }
    return true;
}

static const pb_entry_t pair_entry = {
    .struct_size = sizeof(pb_entry_t),
    .abi_major = PB_ABI_VERSION_MAJOR,
    .abi_minor = PB_ABI_VERSION_MINOR,
    .init = pair_init,
    .deinit = pair_deinit,
    .register_plugins = pair_register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void)
{
    return &pair_entry;
}
