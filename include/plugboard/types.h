/* Plugboard C ABI: the small shared vocabulary of every header. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Calling rules. Every function pointer in these headers carries a tag:
 *
 *   [dispatch-thread]  called by the host on its one dispatch thread, one call
 *                      at a time, never re-entrantly for the same plugin. The
 *                      callback must return promptly and must not unwind
 *                      (catch C++ exceptions, Rust panics and Swift errors).
 *   [thread-safe]      the host implements it; any thread may call it, at any
 *                      time while the library is initialized.
 *   [register]         valid only while `register_plugins` runs.
 *
 * Strings. Every `const char *` the host passes is valid UTF-8 (what the host
 * was given that was not, it repaired with U+FFFD or refused) and
 * NUL-terminated; where a length is passed too, it is the byte count without
 * the NUL. Unless a
 * comment says otherwise, it is owned by the host and valid only until the
 * callback returns: copy what you keep.
 *
 * JSON. Dictionaries (launch options, user info) travel as JSON object text;
 * an absent dictionary is "{}", never NULL.
 */

/** Result of a host service call: PB_OK or one of the negative PB_ERR_* codes. */
typedef int32_t pb_status_t;

/** Success. */
#define PB_OK 0
/** An argument was NULL, too small, or malformed (for example a bad plugin id). */
#define PB_ERR_INVALID_ARGUMENT (-1)
/** A plugin with the same id was already added by this library. */
#define PB_ERR_DUPLICATE_ID (-2)
/** The call came at a time its tag does not allow (e.g. a registrar used after registration). */
#define PB_ERR_WRONG_STATE (-3)

/* ---- since 1.1: the files service ---- */

/** The path, or one of its folders, does not exist. */
#define PB_ERR_NOT_FOUND (-4)
/** The destination exists and PB_FILES_OVERWRITE was not given. */
#define PB_ERR_EXISTS (-5)
/** The path is malformed, leaves the container, or goes through a symbolic link. */
#define PB_ERR_INVALID_PATH (-6)
/** The system failed (see last_error for its words). */
#define PB_ERR_IO (-7)
/** The system denied access. */
#define PB_ERR_PERMISSION (-8)
/** The host offers no such service here (for example no container). */
#define PB_ERR_UNAVAILABLE (-9)

/* ---- since 1.3: authorization ---- */

/** The host's policy denies this plugin's library the service (files, invoke, post):
 *  an operator's choice, not a fault; retrying gets the same answer. */
#define PB_ERR_DENIED (-10)
