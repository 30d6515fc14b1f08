/* Plugboard C ABI: the services the host offers to a plugin library. */
#pragma once

#include "macros.h"
#include "types.h"
#include "services/files.h"
#include "services/notifications.h"
#include "functions.h"

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
 * An invocation prepared once with `pb_host_t.prepare_invoke` and made many
 * times with `call_prepared` (since 1.4). Opaque: a handle the host gives
 * out and checks, never dereferenced by the plugin.
 */
typedef struct pb_prepared_invoke pb_prepared_invoke_t;

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

    /* ---- since 1.2 ---- */

    /**
     * Calls the function `function`, "plugin-id.function" (e.g.
     * "com.example.units.convert"), that a plugin declared (functions.h), with
     * `argument_count` arguments from `arguments`, checked against its declared
     * signature as for every call, and writes its result to `*result`. Any
     * plugin's function, this library's own included, wherever it runs: both in
     * the host's process, in one worker or in two, or one here and one there; the
     * host carries the call and the result across. [thread-safe]
     *
     * `arguments` (NULL when `argument_count` is 0) is the caller's, borrowed for
     * the call (see pb_value_t). On PB_OK `*result` holds the function's result
     * (PB_VALUE_VOID for a void function); a string or bytes result is the
     * caller's to free with `release_value`. On failure `*result` is
     * PB_VALUE_VOID and nothing is to be freed. `error` (may be NULL when
     * `error_size` is 0) receives a sentence naming the function and the cause,
     * NUL-terminated and cut to fit `error_size` bytes (never inside a UTF-8 sequence);
     * an empty string on PB_OK.
     *
     * Returns PB_OK, or:
     *   PB_ERR_INVALID_ARGUMENT  a NULL or malformed `function`, NULL `result`,
     *                            an argument of the wrong kind, count or range,
     *                            an unknown kind, a string that is not UTF-8, a
     *                            `pointer` argument or result between two processes,
     *                            or strings and bytes of more than 64 MiB less 64 KiB
     *                            (67043328 bytes), one or all together (what one
     *                            worker frame carries, in every placement);
     *   PB_ERR_NOT_FOUND         no such plugin or function, or a function whose
     *                            declaration was refused at load;
     *   PB_ERR_IO                the function returned what its type forbids;
     *   PB_ERR_UNAVAILABLE       the function's worker crashed, exited or did not
     *                            return within the call timeout (the host reports
     *                            the worker as for any call);
     *   PB_ERR_WRONG_STATE       invocations nested more than 16 deep (a function
     *                            that invokes one that invokes it again, without end),
     *                            or a call after this library's `deinit`;
     *   PB_ERR_DENIED            (since 1.3) the host's policy denies this library
     *                            invoke (a function of the library's own plugins is
     *                            never denied); the same answer on every retry.
     *
     * The call runs on the calling thread when the function is in the caller's
     * process, else in the function's worker while the caller waits.
     */
    pb_status_t (*invoke)(const pb_host_t *host, const char *function, const pb_value_t *arguments,
                          size_t argument_count, pb_value_t *result, char *error, size_t error_size);

    /**
     * Frees a result `invoke` wrote: the string or bytes the host allocated, and
     * sets `*value` to PB_VALUE_VOID. Does nothing for other kinds or NULL. Call
     * it once per result; any thread, also after `deinit`. [thread-safe]
     */
    void (*release_value)(const pb_host_t *host, pb_value_t *value);

    /* ---- since 1.3 ---- */

    /**
     * The notification bus (services/notifications.h): post a notification,
     * observe one. Non-NULL in a 1.3 host; read it only when `struct_size`
     * covers it (an older host's table ends before it).
     */
    const pb_notifications_t *notifications;

    /* ---- since 1.4 ---- */

    /**
     * Prepares calls of `function` with `arguments`, as `invoke` would make
     * them, for `call_prepared` to make many times: the function is looked up,
     * the policy asked, and each argument checked against the signature and
     * copied, once, here. On PB_OK `*prepared` is the handle, the caller's
     * until `release_prepared`; on failure it is NULL. Statuses and `error`
     * as for `invoke`, for everything but running the function. [thread-safe]
     *
     * A function in another process than the caller's is looked up and
     * checked here all the same, and each call is checked again where it runs.
     */
    pb_status_t (*prepare_invoke)(const pb_host_t *host, const char *function, const pb_value_t *arguments,
                                  size_t argument_count, pb_prepared_invoke_t **prepared, char *error,
                                  size_t error_size);

    /**
     * Sets argument `index` (0-based) of `prepared` to `value`, checked and
     * copied as `prepare_invoke` does; on failure the argument keeps its value.
     * Returns PB_OK, or PB_ERR_INVALID_ARGUMENT (an unknown handle, an index
     * the signature has not, a value that does not fit), or PB_ERR_WRONG_STATE
     * while a call of `prepared` runs (a re-entrant set) or after this
     * library's `deinit`; for a function in another process than a worker's
     * caller, also what the host's check answers (PB_ERR_NOT_FOUND when the
     * function is gone). [thread-safe]
     */
    pb_status_t (*set_prepared_argument)(const pb_host_t *host, pb_prepared_invoke_t *prepared, size_t index,
                                         const pb_value_t *value, char *error, size_t error_size);

    /**
     * Calls the prepared function with its arguments as set, as `invoke`
     * would, with the same result (free a string or bytes with
     * `release_value`), statuses and `error`; PB_ERR_INVALID_ARGUMENT for an
     * unknown handle. When the function's plugin was loaded again or removed
     * since, it is looked up again (PB_ERR_NOT_FOUND when it is gone). Calls
     * of one handle may run at once, on several threads or nested. [thread-safe]
     */
    pb_status_t (*call_prepared)(const pb_host_t *host, pb_prepared_invoke_t *prepared, pb_value_t *result,
                                 char *error, size_t error_size);

    /**
     * Frees `prepared`; a call of it that is running finishes as if it had not
     * been released. An unknown or already released handle, or NULL, is ignored. Any thread, also after
     * `deinit`; the handles a library did not release are freed when its
     * `deinit` returns. [thread-safe]
     */
    void (*release_prepared)(const pb_host_t *host, pb_prepared_invoke_t *prepared);
};

PB_END_DECLS
