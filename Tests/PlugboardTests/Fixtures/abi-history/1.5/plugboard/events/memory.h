/* Plugboard C ABI: memory pressure. */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/**
 * Memory pressure. Policy: broadcast to every plugin, in priority order.
 * Owned by the plugin; valid until `deinit` returns. A NULL slot is skipped.
 */
typedef struct pb_memory {
    /** sizeof(pb_memory_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /** The system is short of memory: drop caches and anything you can rebuild. [dispatch-thread] */
    void (*did_receive_memory_warning)(void *ctx);
} pb_memory_t;

PB_END_DECLS
