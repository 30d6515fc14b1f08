/* Plugboard C ABI: remote (push) notifications. */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/** What a plugin fetched in answer to a remote notification. */
typedef int32_t pb_fetch_result_t;
/** New data was fetched. The strongest answer: one plugin with new data makes the aggregate new data. */
#define PB_FETCH_NEW_DATA 0
/** Nothing new. The aggregate with no plugins. */
#define PB_FETCH_NO_DATA 1
/** The fetch failed. The aggregate only when every plugin that answered failed. */
#define PB_FETCH_FAILED 2

/**
 * A completion handle the host passes with each notification.
 *
 * Owned by the host; valid memory from the `did_receive_remote_notification`
 * call for the life of the process, so the plugin may answer later, from any
 * thread. Answer exactly once: the first call counts; a second call, a call
 * after the host's deadline or an unknown result value is ignored and reported.
 * A call after the library's `deinit` is ignored and reported once as a
 * warning naming the library.
 */
typedef struct pb_fetch_completion pb_fetch_completion_t;
struct pb_fetch_completion {
    /** sizeof(pb_fetch_completion_t) of the host. */
    uint32_t struct_size;
    /** Opaque host data. Do not read or change it. */
    void *host_data;
    /**
     * Answers the notification with one of the PB_FETCH_* values.
     * [thread-safe]
     */
    void (*complete)(const pb_fetch_completion_t *completion, pb_fetch_result_t result);
};

/**
 * Remote notifications. Policies: registration results are broadcast to every
 * plugin in priority order; a received notification goes to every plugin, and
 * the host's answer (new data > no data > failed) is given once, after every
 * plugin answered or the host's deadline passed. A plugin that has not answered
 * by then is reported as timed out and does not count.
 *
 * Owned by the plugin; valid until `deinit` returns. A NULL slot means the
 * plugin does not take part in that event: it is skipped, and for a
 * notification it is neither waited for nor counted in the answer.
 */
typedef struct pb_remote_notifications {
    /** sizeof(pb_remote_notifications_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.0 ---- */

    /**
     * The device registered for remote notifications; `token` is `token_len`
     * opaque bytes (not NUL-terminated; may be NULL when `token_len` is 0).
     * [dispatch-thread]
     */
    void (*did_register)(void *ctx, const uint8_t *token, size_t token_len);

    /**
     * Registration failed; `error` is a human-readable reason (`error_len` bytes).
     * [dispatch-thread]
     */
    void (*did_fail_to_register)(void *ctx, const char *error, size_t error_len);

    /**
     * A notification arrived with the JSON object `user_info_json`. Call
     * `completion->complete` exactly once, now or later, from any thread.
     * [dispatch-thread]
     */
    void (*did_receive_remote_notification)(void *ctx, const char *user_info_json,
                                            size_t user_info_len,
                                            const pb_fetch_completion_t *completion);
} pb_remote_notifications_t;

PB_END_DECLS
