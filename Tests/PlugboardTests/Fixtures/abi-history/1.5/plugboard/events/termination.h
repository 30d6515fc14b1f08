/* Plugboard C ABI: application termination. */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/**
 * Termination. Policy: broadcast in reverse priority order (last in, first
 * out), so a plugin that others rely on hears it last. Also sent when the
 * operator interrupts the host (SIGINT, SIGTERM). Owned by the plugin; valid
 * until `deinit` returns. A NULL slot is skipped.
 */
typedef struct pb_termination {
    /** sizeof(pb_termination_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /** The application is about to terminate: save state now. [dispatch-thread] */
    void (*will_terminate)(void *ctx);
} pb_termination_t;

PB_END_DECLS
