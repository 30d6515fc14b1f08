/* Plugboard C ABI: the services the host offers to a plugin library. */
#pragma once

#include "macros.h"
#include "types.h"
#include "services/files.h"

PB_BEGIN_DECLS

/** Severity of a log message. */
typedef int32_t pb_log_level_t;
/** Fine-grained tracing, hidden unless the operator asks for it. */
#define PB_LOG_TRACE 0
/** Diagnostic detail. */
#define PB_LOG_DEBUG 1
/** Normal operation worth noting. */
#define PB_LOG_INFO 2
/** Something odd that the plugin recovered from. */
#define PB_LOG_WARNING 3
/** A failure. An error logged while `init` or `register_plugins` runs becomes
 *  part of the load report when that call fails. */
#define PB_LOG_ERROR 4

/**
 * The host services table, handed to the library's `init`.
 *
 * Owned by the host; valid memory for the life of the process, so a library
 * may keep the pointer. It serves the library from `init` until `deinit`
 * returns (until `init` returns, when `init` returns false); a call after
 * that is ignored and reported once as a warning naming the library (a files
 * function returns PB_ERR_WRONG_STATE). Each library gets its own table, which is how the host
 * attributes log messages to their source. A newer host may hand over a
 * longer table (`struct_size` says how long); read only the fields you know.
 * Every function pointer of the 1.0 part is non-NULL.
 */
typedef struct pb_host pb_host_t;
struct pb_host {
    /** sizeof(pb_host_t) of the host that filled the table. */
    uint32_t struct_size;
    /** The host's ABI major version (PB_ABI_VERSION_MAJOR). */
    uint32_t abi_major;
    /** The host's ABI minor version. */
    uint32_t abi_minor;
    /** Host name, e.g. "plugboard". NUL-terminated, host-owned, valid as long as the table. */
    const char *name;
    /** Host version, e.g. "0.1.0". NUL-terminated, host-owned, valid as long as the table. */
    const char *version;
    /** Opaque host data. Do not read or change it. */
    void *host_data;

    /* ---- since 1.0 ---- */

    /**
     * Logs one message on behalf of the plugin `plugin_id` (one of this
     * library's ids) or, with NULL, of the library itself. `message` is
     * NUL-terminated UTF-8 and copied before the call returns. An unknown id or
     * level is logged anyway, marked as such.
     * [thread-safe]
     */
    void (*log)(const pb_host_t *host, const char *plugin_id, pb_log_level_t level,
                const char *message);

    /* ---- since 1.1 ---- */

    /**
     * The application's container (services/files.h), or NULL when this host
     * has none (for example `plugboard list` and `inspect`).
     */
    const pb_files_t *files;
};

PB_END_DECLS
