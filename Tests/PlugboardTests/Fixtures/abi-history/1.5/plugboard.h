/*
 * Plugboard: a plugin framework for Linux with a stable C ABI.
 *
 * Include this one header to write a plugin. A plugin library exports one C
 * function, `plugboard_entry` (see plugboard/entry.h), and adds one or more
 * plugins (plugboard/plugin.h), each taking part in the concerns it chooses
 * (plugboard/events/) and offering functions to be called by name
 * (plugboard/functions.h). The host hands the library its services
 * (plugboard/host.h). Calling rules and string ownership: plugboard/types.h.
 */
#pragma once

#include "plugboard/macros.h"
#include "plugboard/version.h"
#include "plugboard/types.h"
#include "plugboard/host.h"
#include "plugboard/events/launch.h"
#include "plugboard/events/open-url.h"
#include "plugboard/events/user-activity.h"
#include "plugboard/events/remote-notifications.h"
#include "plugboard/events/memory.h"
#include "plugboard/events/protected-data.h"
#include "plugboard/events/app-state.h"
#include "plugboard/events/termination.h"
#include "plugboard/events/saved-state.h"
#include "plugboard/functions.h"
#include "plugboard/plugin.h"
#include "plugboard/entry.h"
