/* Plugboard C ABI: version numbers and their history. */
#pragma once

#include <stdint.h>

/*
 * History (append a line with each change; structs only grow at the end):
 *   1.0  entry, registrar, host (log), plugin descriptor and the eight event
 *        vtables: launch, open-url, user-activity, remote-notifications,
 *        memory, protected-data, app-state, termination.
 *   1.1  the files service (services/files.h): pb_host_t.files; status codes
 *        PB_ERR_NOT_FOUND, PB_ERR_EXISTS, PB_ERR_INVALID_PATH, PB_ERR_IO,
 *        PB_ERR_PERMISSION, PB_ERR_UNAVAILABLE.
 *   1.2  functions called by name (functions.h): pb_function_t, pb_bytes_t,
 *        pb_plugin_t.functions and pb_plugin_t.function_count;
 *        one plugin calling another's function (before 1.2 was released, so
 *        within 1.2): pb_value_t, PB_VALUE_*, pb_host_t.invoke and
 *        pb_host_t.release_value.
 *   1.3  status PB_ERR_DENIED: a host service call the host's policy denies;
 *        saved state (events/saved-state.h): pb_saved_state_t,
 *        pb_plugin_t.saved_state, PB_SAVED_STATE_MAX_SIZE;
 *        the notification bus (services/notifications.h): pb_notifications_t,
 *        pb_notification_fn, PB_NOTIFICATION_*, pb_host_t.notifications.
 *   1.4  prepared invocations: pb_prepared_invoke_t, pb_host_t.prepare_invoke,
 *        pb_host_t.set_prepared_argument, pb_host_t.call_prepared and
 *        pb_host_t.release_prepared.
 *   1.5  no layout change: every text the host passes is UTF-8, an event's too
 *        (a 1.4 host passed an embedder's bytes as it was given them), so an
 *        SDK built for 1.5 lends event texts without checking them; a plugin's
 *        name and version are at most 255 bytes each, as its id is (a longer one
 *        refuses the plugin).
 *
 * Compatibility rule: the major version must equal the host's; a plugin built
 * for a newer minor than the host's is refused; an older minor loads, and the
 * host treats every slot the plugin's struct_size does not cover as NULL.
 */

/** ABI major version. A plugin with another major is refused. */
#define PB_ABI_VERSION_MAJOR 1u
/** ABI minor version. A plugin with a newer minor than the host's is refused. */
#define PB_ABI_VERSION_MINOR 5u
