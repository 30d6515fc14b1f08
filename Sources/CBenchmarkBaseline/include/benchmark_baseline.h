/*
 * CBenchmarkBaseline: the hand-written C dispatcher that `plugboard-benchmark`
 * measures Plugboard's host against.
 *
 * It does, with no checks beyond what the C ABI requires, what the host does:
 * lists the `*.so` files of a directory in byte order of the name, opens each
 * with `dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)` (the host's flags),
 * calls `plugboard_entry`, `init` with a minimal `pb_host_t` whose `log` does
 * nothing, and `register_plugins` with a registrar that copies each
 * `pb_plugin_t` (and its id) into an array. Then it calls the plugins' vtables
 * in a plain loop and times the loop with CLOCK_MONOTONIC.
 *
 * Not a host: no version check beyond the major, no report, no `deinit` (the
 * libraries may be shared with a `PluginHost` in the same process, which owns
 * their lifecycle). Opening files a host already loaded calls their `init`
 * and `register_plugins` a second time, which the ABI does not promise to
 * work; the benchmark's generated plugins allow it. Use a set from one thread.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The libraries of one directory and the plugins they registered. */
typedef struct pbb_set pbb_set_t;

/** Nanoseconds on CLOCK_MONOTONIC. */
uint64_t pbb_now_ns(void);

/**
 * Opens every `*.so` file of `directory` (byte order of the name), calls its
 * entry, `init` and `register_plugins`, and copies the plugins it adds.
 * Returns NULL on the first failure and writes a one-line reason into `error`
 * (`error_size` bytes, always NUL-terminated when `error_size` > 0).
 * Free the result with `pbb_set_close`.
 */
pbb_set_t *pbb_set_open_directory(const char *directory, char *error, size_t error_size);

/**
 * `pbb_set_open_directory`, each library first read as the host's ELF checks
 * read it before its `dlopen`: opened without following a link, its status
 * taken, its header and program headers read, then its dynamic section, in
 * 1 KiB blocks, and closed. Only that it is a 64-bit ELF file with a dynamic
 * section is checked: this measures the checks' system calls, the part of the
 * checks a loader in any language pays.
 */
pbb_set_t *pbb_set_open_directory_checked(const char *directory, char *error, size_t error_size);

/** The number of libraries the set opened. */
size_t pbb_set_library_count(const pbb_set_t *set);

/** The number of plugins the libraries registered. */
size_t pbb_set_plugin_count(const pbb_set_t *set);

/**
 * Runs `iterations` rounds of: for each plugin with a launch vtable,
 * `answer &= launch->will_finish_launching(ctx, "{}", 2)` (a NULL slot counts
 * as true). Stores the AND of every round in `*answer` (if non-NULL).
 * Returns the elapsed nanoseconds.
 */
uint64_t pbb_set_will_finish_launching(const pbb_set_t *set, uint64_t iterations, bool *answer);

/**
 * The same loop, but also reading the clock after each call and storing the
 * call's duration in `durations[i]` (`durations` has room for
 * `pbb_set_plugin_count(set)` values): the least a dispatcher that reports a
 * per-plugin time has to do. Returns the elapsed nanoseconds.
 */
uint64_t pbb_set_will_finish_launching_timed(const pbb_set_t *set, uint64_t iterations, uint64_t *durations,
                                             bool *answer);

/**
 * The same loop, reading the clock at the start and at the end of each round
 * (the duration goes to a volatile sink): the least a dispatcher that reports
 * each event's duration has to do. Returns the elapsed nanoseconds.
 */
uint64_t pbb_set_will_finish_launching_event_timed(const pbb_set_t *set, uint64_t iterations, bool *answer);

/**
 * Runs `iterations` rounds of: for each plugin with a memory vtable and a
 * non-NULL slot, `memory->did_receive_memory_warning(ctx)`.
 * Returns the elapsed nanoseconds.
 */
uint64_t pbb_set_memory_warning(const pbb_set_t *set, uint64_t iterations);

/**
 * The memory-warning loop with one clock read after each call (and one at the
 * start of each round), storing each duration in `durations[i]` (room for
 * `pbb_set_plugin_count(set)` values). Returns the elapsed nanoseconds.
 */
uint64_t pbb_set_memory_warning_timed(const pbb_set_t *set, uint64_t iterations, uint64_t *durations);

/**
 * The memory-warning loop with a clock read at the start and at the end of
 * each round. Returns the elapsed nanoseconds.
 */
uint64_t pbb_set_memory_warning_event_timed(const pbb_set_t *set, uint64_t iterations);

/**
 * The launch loop over a copy of the slots: on first use, the set copies each
 * non-NULL `will_finish_launching` slot and its ctx into one contiguous array
 * (as the host copies the vtables it reads to their `struct_size`), and the
 * loop calls `answer &= slot(ctx, "{}", 2)` without following each plugin's
 * vtable pointer into its library. Returns the elapsed nanoseconds, 0 when
 * out of memory.
 */
uint64_t pbb_set_will_finish_launching_copied(pbb_set_t *set, uint64_t iterations, bool *answer);

/** The memory-warning loop over a copy of the slots, like `pbb_set_will_finish_launching_copied`. */
uint64_t pbb_set_memory_warning_copied(pbb_set_t *set, uint64_t iterations);

/**
 * The C function of the first plugin function called `name` that a plugin of
 * the set declares (`pb_function_t.function`, ABI 1.2), or NULL. It belongs to
 * its library, which stays loaded.
 */
void (*pbb_set_function(const pbb_set_t *set, const char *name))(void);

/** Frees the set's memory. The libraries stay mapped and initialized. NULL is ignored. */
void pbb_set_close(pbb_set_t *set);

#ifdef __cplusplus
}
#endif
