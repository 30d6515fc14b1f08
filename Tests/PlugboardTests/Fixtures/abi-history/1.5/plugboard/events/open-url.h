/* Plugboard C ABI: opening URLs (deep links). */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/**
 * URL opening. Policy: plugins are asked in priority order; the first that
 * returns true handles the URL and the rest are not asked. With no plugins,
 * or when none handles it, the answer is false.
 *
 * Owned by the plugin; valid until `deinit` returns. A NULL slot means
 * "not handled".
 */
typedef struct pb_open_url {
    /** sizeof(pb_open_url_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /**
     * Asks the plugin to open `url` (`url_len` bytes, NUL-terminated, not
     * validated by the host). `options_json` is a JSON object ("{}" when
     * empty). Return true if the plugin handled the URL.
     * [dispatch-thread]
     */
    bool (*open_url)(void *ctx, const char *url, size_t url_len, const char *options_json,
                     size_t options_len);
} pb_open_url_t;

PB_END_DECLS
