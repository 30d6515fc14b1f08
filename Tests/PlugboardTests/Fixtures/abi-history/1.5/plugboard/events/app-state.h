/* Plugboard C ABI: application state changes (active, inactive, background). */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/**
 * Application state changes. Policy: broadcast to every plugin, in priority
 * order. Owned by the plugin; valid until `deinit` returns. A NULL slot is skipped.
 */
typedef struct pb_app_state {
    /** sizeof(pb_app_state_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /** The application became active (in front, receiving input). [dispatch-thread] */
    void (*did_become_active)(void *ctx);

    /** The application is about to become inactive. [dispatch-thread] */
    void (*will_resign_active)(void *ctx);

    /** The application moved to the background. [dispatch-thread] */
    void (*did_enter_background)(void *ctx);

    /** The application is about to come back to the foreground. [dispatch-thread] */
    void (*will_enter_foreground)(void *ctx);
} pb_app_state_t;

PB_END_DECLS
