/* Plugboard C ABI: the descriptor of one plugin. */
#pragma once

#include "macros.h"
#include "types.h"
#include "events/launch.h"
#include "events/open-url.h"
#include "events/user-activity.h"
#include "events/remote-notifications.h"
#include "events/memory.h"
#include "events/protected-data.h"
#include "events/app-state.h"
#include "events/termination.h"
#include "events/saved-state.h"
#include "functions.h"

PB_BEGIN_DECLS

/**
 * One plugin: who it is and the concerns it takes part in. A library adds any
 * number of these through the registrar.
 *
 * The host copies the descriptor and its strings when `add_plugin` is called,
 * so the struct and the strings may be temporary. The vtables and `ctx` are
 * kept: they must stay valid until the library's `deinit` returns.
 *
 * Each concern is its own vtable; NULL means the plugin does not take part, and
 * the host never calls it for that concern.
 *
 * Since 1.2 a plugin may also offer functions to be called by name
 * (functions.h); a plugin built for 1.0 or 1.1 has a smaller struct_size and
 * offers none.
 *
 * Since 1.3 a plugin may also keep state across runs (events/saved-state.h).
 */
typedef struct pb_plugin {
    /** sizeof(pb_plugin_t) the plugin was compiled with. */
    uint32_t struct_size;
    /** Order of dispatch: higher first; equal priorities go by id. 0 is the usual value. */
    int32_t priority;
    /**
     * Reverse-DNS id, unique in the process, e.g. "com.example.deeplinks":
     * 3 to 255 bytes of letters, digits, '-' and '_', in at least two
     * dot-separated non-empty labels. Required.
     */
    const char *id;
    /** Human-readable name, at most 255 bytes. NULL or "" means: show the id. */
    const char *name;
    /** The plugin's own version, e.g. "1.2.0", at most 255 bytes. NULL means "0". */
    const char *version;
    /** Plugin-owned state, passed back as the first argument of every callback. May be NULL. */
    void *ctx;

    /* ---- since 1.0: the concerns ---- */

    /** Launch events, or NULL. */
    const pb_launch_t *launch;
    /** URL opening, or NULL. */
    const pb_open_url_t *open_url;
    /** User activity continuation, or NULL. */
    const pb_user_activity_t *user_activity;
    /** Remote notifications, or NULL. */
    const pb_remote_notifications_t *remote_notifications;
    /** Memory warnings, or NULL. */
    const pb_memory_t *memory;
    /** Protected data changes, or NULL. */
    const pb_protected_data_t *protected_data;
    /** Application state changes, or NULL. */
    const pb_app_state_t *app_state;
    /** Termination, or NULL. */
    const pb_termination_t *termination;

    /* ---- since 1.2: functions called by name ---- */

    /**
     * `function_count` function declarations (functions.h), or NULL with a
     * count of 0 for none. Plugin-owned and read only in `add_plugin`: the
     * array may be temporary (the host copies each declaration's strings and
     * keeps its function pointers). At most 1024 functions per plugin.
     */
    const pb_function_t *functions;
    /** The number of entries in `functions`. */
    uint32_t function_count;

    /* ---- since 1.3: saved state ---- */

    /** Saving and restoring state across runs (events/saved-state.h), or NULL. */
    const pb_saved_state_t *saved_state;
} pb_plugin_t;

PB_END_DECLS
