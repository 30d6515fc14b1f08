/* Plugboard C ABI: the notification bus host service, plugins telling each other what changed. */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/* The host table (host.h), named by its struct tag so this header stands alone. */
struct pb_host;

/*
 * The notification bus (since 1.3): one plugin posts a named notification with
 * a JSON payload; every plugin that observes that name receives it.
 *
 * Names are reverse-DNS like plugin ids ("com.example.network.status"): at
 * least two dot-separated labels of ASCII letters, digits, '-' and '_', at most
 * PB_NOTIFICATION_NAME_MAX bytes. A payload is the text of one JSON object
 * (NULL means "{}"), UTF-8, at most PB_NOTIFICATION_PAYLOAD_MAX bytes, in
 * strict RFC 8259 syntax: no trailing comma, no lone escaped surrogate,
 * arrays and objects nested at most 512 deep.
 *
 * Delivery. `post` only queues the notification and returns. The host delivers
 * the queue on its dispatch thread (the thread of the lifecycle callbacks):
 * after each event's callbacks returned, and again after each observer
 * callback, until the queue is empty. Notifications are delivered in posting
 * order, each to its observers in dispatch order (higher priority first, ties
 * by id; one plugin's observers in the order it added them). A notification
 * posted during a callback is therefore delivered after that callback
 * returned, never inside it. A notification nobody observes is counted in
 * the host's report, not an error.
 *
 * Depth. A notification posted while an observer callback runs (from the
 * callback, or meanwhile from any thread or worker) is one level deeper than
 * the one being delivered; one posted at another time is at depth 1. A
 * notification deeper than PB_NOTIFICATION_DEPTH_MAX is dropped, counted and
 * reported naming its poster, so observers posting to each other cannot loop
 * forever.
 *
 * Lifetime. `observe` and `post` serve a library from its first event on (not
 * in `init` or `register_plugins`) until its `deinit`; a call after that is
 * PB_ERR_WRONG_STATE and reported once. A library's observers end with it: at
 * its `deinit`, and when its worker crashes, exits or hangs.
 *
 * Refused calls return a PB_ERR_* code, and the host logs a warning that
 * names the plugin, the call and the cause (the first 16 refusals of a
 * library; the 16th says that later ones are not logged).
 *
 * Every function is [thread-safe]; every callback runs on the dispatch thread.
 */

/** The longest notification name, in bytes. */
#define PB_NOTIFICATION_NAME_MAX 255
/** The largest payload, in bytes of JSON text. */
#define PB_NOTIFICATION_PAYLOAD_MAX 65536
/** The deepest notification delivered: one posted from an observer, posted from an observer, ... 16 times. */
#define PB_NOTIFICATION_DEPTH_MAX 16
/** The most notifications waiting for delivery at once (posted between two
 *  deliveries faster than they are delivered): a post past it is refused. */
#define PB_NOTIFICATION_QUEUE_MAX 4096
/** The most observations one library holds at once: an `observe` past it is refused. */
#define PB_NOTIFICATION_OBSERVERS_MAX 1024

/**
 * An observer: called once for each notification named as it asked, on the
 * dispatch thread, one callback at a time. `ctx` is what `observe` was given.
 * `name`, `payload_json` (a JSON object) and `sender_id` (the posting
 * plugin's id, or "plugboard" for the host or an events script) are
 * NUL-terminated UTF-8, host-owned and valid during the call only. The
 * callback may call `post`, `observe` and `stop_observing`, its own token
 * included. It must not unwind (no C++ exception, no Rust panic).
 */
typedef void (*pb_notification_fn)(void *ctx, const char *name, const char *payload_json,
                                   const char *sender_id);

/**
 * The notification bus (since 1.3), `pb_host_t.notifications`. Host-owned,
 * valid for the life of the process. Every function pointer is non-NULL.
 */
typedef struct pb_notifications pb_notifications_t;
struct pb_notifications {
    /** sizeof(pb_notifications_t) of the host; read only the fields it covers. */
    uint32_t struct_size;

    /**
     * Posts the notification `name` with `payload_json` (NULL: "{}") on behalf
     * of `plugin_id`, one of this library's plugins. Both strings are copied
     * before the call returns. [thread-safe]
     *
     * Returns PB_OK (also when nobody observes the name), or:
     *   PB_ERR_INVALID_ARGUMENT  a NULL or unknown `plugin_id`, a NULL or
     *                            malformed `name`, a payload that is not a
     *                            JSON object or is too large;
     *   PB_ERR_WRONG_STATE       before the library's first event, or after
     *                            its `deinit`;
     *   PB_ERR_DENIED            the host's policy denies this library `post`
     *                            (the first denial is logged, not every retry;
     *                            in a worker: PB_OK, and the host drops it);
     *   PB_ERR_UNAVAILABLE       PB_NOTIFICATION_QUEUE_MAX notifications wait
     *                            for delivery already (in a worker: PB_OK, and
     *                            the host drops it).
     */
    pb_status_t (*post)(const struct pb_host *host, const char *plugin_id, const char *name,
                        const char *payload_json);

    /**
     * Calls `callback(ctx, …)` for every notification named `name` from now on,
     * on behalf of `plugin_id`, one of this library's plugins, whose priority
     * orders it among the observers. Writes the observation's token, never 0,
     * to `*token`. `name` is copied; `ctx` stays the plugin's. [thread-safe]
     *
     * Returns PB_OK, or:
     *   PB_ERR_INVALID_ARGUMENT  a NULL or unknown `plugin_id`, a NULL or
     *                            malformed `name`, a NULL `callback` or `token`;
     *   PB_ERR_WRONG_STATE       before the library's first event, or after
     *                            its `deinit`;
     *   PB_ERR_DENIED            the host's policy denies this library `observe`
     *                            (the first denial is logged, not every retry;
     *                            in a worker: PB_OK, and the host drops it);
     *   PB_ERR_UNAVAILABLE       the library holds PB_NOTIFICATION_OBSERVERS_MAX
     *                            observations already (stop some first).
     */
    pb_status_t (*observe)(const struct pb_host *host, const char *plugin_id, const char *name,
                           pb_notification_fn callback, void *ctx, uint64_t *token);

    /**
     * Ends the observation `token` that this library's `observe` returned.
     * Called on the dispatch thread (from any observer or lifecycle callback),
     * the callback is not called again, also when a notification it was about
     * to receive is being delivered. Called from another thread, a call
     * already under way may still run (or start) as this returns: free the
     * observer's `ctx` on the dispatch thread. [thread-safe]
     *
     * Returns PB_OK, or:
     *   PB_ERR_NOT_FOUND    no such observation of this library (never made,
     *                       already ended, or another library's);
     *   PB_ERR_WRONG_STATE  after the library's `deinit`.
     */
    pb_status_t (*stop_observing)(const struct pb_host *host, uint64_t token);
};

PB_END_DECLS
