/* Plugboard C ABI: version numbers and their history. */
#pragma once

#include <stdint.h>

/*
 * History (append a line with each change; structs only grow at the end):
 *   1.0  entry, registrar, host (log), plugin descriptor and the eight event
 *        vtables: launch, open-url, user-activity, remote-notifications,
 *        memory, protected-data, app-state, termination.
 *
 * Compatibility rule: the major version must equal the host's; a plugin built
 * for a newer minor than the host's is refused; an older minor loads, and the
 * host treats every slot the plugin's struct_size does not cover as NULL.
 */

/** ABI major version. A plugin with another major is refused. */
#define PB_ABI_VERSION_MAJOR 1u
/** ABI minor version. A plugin with a newer minor than the host's is refused. */
#define PB_ABI_VERSION_MINOR 0u
