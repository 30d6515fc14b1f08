/* Plugboard C ABI: application launch. */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/**
 * Launch events. Policy: the host calls every plugin that has this vtable (none
 * is skipped because another said no), then ANDs the answers; a `false` is a
 * veto and is reported with the plugin's id. With no plugins the answer is true.
 * After a veto of either event the host sends no further event but
 * `will_terminate` (so a vetoed will-finish is not followed by did-finish).
 *
 * Owned by the plugin; must stay valid until the library's `deinit` returns
 * (a `static const` table is the usual choice). A NULL slot means "true".
 */
typedef struct pb_launch {
    /** sizeof(pb_launch_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /**
     * The application is about to finish launching. `options_json` is a JSON
     * object (`options_len` bytes, NUL-terminated; "{}" when there are none).
     * Return false to veto the launch.
     * [dispatch-thread]
     */
    bool (*will_finish_launching)(void *ctx, const char *options_json, size_t options_len);

    /**
     * The application has finished launching; same arguments and meaning of the
     * answer as `will_finish_launching`.
     * [dispatch-thread]
     */
    bool (*did_finish_launching)(void *ctx, const char *options_json, size_t options_len);
} pb_launch_t;

PB_END_DECLS
