/* Plugboard C ABI: continuing a user activity (handoff, universal links). */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/**
 * User activity continuation. Policy: priority order, the first plugin that
 * returns true handles it and the rest are not asked; false with no plugins.
 *
 * Owned by the plugin; valid until `deinit` returns. A NULL slot means
 * "not handled".
 */
typedef struct pb_user_activity {
    /** sizeof(pb_user_activity_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /**
     * Asks the plugin to continue an activity of type `activity_type`
     * (reverse-DNS text, `type_len` bytes) with the JSON object
     * `user_info_json` ("{}" when empty). Return true if the plugin handled it.
     * [dispatch-thread]
     */
    bool (*continue_user_activity)(void *ctx, const char *activity_type, size_t type_len,
                                   const char *user_info_json, size_t user_info_len);
} pb_user_activity_t;

PB_END_DECLS
