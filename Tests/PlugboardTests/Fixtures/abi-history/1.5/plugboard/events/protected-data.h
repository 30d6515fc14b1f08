/* Plugboard C ABI: protected data (the user's files become locked or unlocked). */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/**
 * Protected-data changes. Policy: broadcast to every plugin, in priority order.
 * Owned by the plugin; valid until `deinit` returns. A NULL slot is skipped.
 */
typedef struct pb_protected_data {
    /** sizeof(pb_protected_data_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /** Protected files are about to become unreadable: close them now. [dispatch-thread] */
    void (*will_become_unavailable)(void *ctx);

    /** Protected files are readable again. [dispatch-thread] */
    void (*did_become_available)(void *ctx);
} pb_protected_data_t;

PB_END_DECLS
