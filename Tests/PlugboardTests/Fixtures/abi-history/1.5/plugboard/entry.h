/* Plugboard C ABI: the one symbol a plugin library exports. */
#pragma once

#include "macros.h"
#include "types.h"
#include "version.h"
#include "host.h"
#include "plugin.h"

PB_BEGIN_DECLS

/**
 * Handed to `register_plugins`; the library adds its plugins through it.
 * Owned by the host and valid only during that call. [register]
 */
typedef struct pb_registrar pb_registrar_t;
struct pb_registrar {
    /** sizeof(pb_registrar_t) of the host. */
    uint32_t struct_size;
    /** The same services table `init` received (also for a library whose `init` is NULL). */
    const pb_host_t *host;
    /** Opaque host data. Do not read or change it. */
    void *host_data;

    /**
     * Adds one plugin. The host copies `plugin` and its strings (see pb_plugin_t).
     * Returns PB_OK; PB_ERR_INVALID_ARGUMENT for a NULL descriptor, a
     * struct_size too small for ABI 1.0, a missing or malformed id or a vtable
     * whose struct_size is too small; PB_ERR_DUPLICATE_ID if this library
     * already added the id; PB_ERR_WRONG_STATE after `register_plugins` returned.
     * A refused plugin is also named in the load report.
     * [register]
     */
    pb_status_t (*add_plugin)(const pb_registrar_t *registrar, const pb_plugin_t *plugin);
};

/**
 * The entry record. `plugboard_entry` returns a pointer to it.
 *
 * Owned by the library; must stay valid while the library is loaded (a
 * `static const` record is the usual choice).
 *
 * Before any code of the library runs, the host reads its dynamic symbol
 * table: `plugboard_entry` must be defined by the library itself, exported
 * (PB_EXPORT) and a function (STT_FUNC) in executable code; otherwise the
 * library is refused at stage `entry` without being opened.
 *
 * The host calls, in this order and on its dispatch thread:
 *   1. `plugboard_entry()`, then checks `abi_major`, `abi_minor` and every
 *      `struct_size`;
 *   2. `init(host)` once per process, however many hosts load the library;
 *   3. `register_plugins(registrar)` once, right after `init`;
 *   4. `deinit()` once, when the last host that uses the library shuts down,
 *      or right away when `register_plugins` returned false or added no
 *      usable plugin; never when `init` returned false.
 * The library is never unloaded (the host opens it with RTLD_NODELETE), so
 * static data outlives `deinit`; a later `init` may follow.
 */
typedef struct pb_entry {
    /** sizeof(pb_entry_t) the plugin was compiled with. */
    uint32_t struct_size;
    /** PB_ABI_VERSION_MAJOR the plugin was compiled with. Must equal the host's. */
    uint32_t abi_major;
    /** PB_ABI_VERSION_MINOR the plugin was compiled with. Must not exceed the host's. */
    uint32_t abi_minor;

    /**
     * Initializes the library. `host` stays valid memory for the life of
     * the process, but serves the library only until `deinit` returns (or,
     * when `init` returns false, until `init` returns): a later call through
     * it (log, files, a completion), from a thread or an `atexit` handler, is
     * ignored and reported once as a warning naming the library.
     * Return false to refuse loading; log the reason with `host->log` at
     * PB_LOG_ERROR first, and the load report will show it. NULL means
     * "nothing to initialize".
     * [dispatch-thread]
     */
    bool (*init)(const pb_host_t *host);

    /**
     * Releases what `init` and the plugins acquired. No callback of this
     * library's plugins runs after it starts. Stop every thread that calls
     * the host before returning: the host ignores (and reports once) any
     * call the library makes after `deinit`.
     * NULL means "nothing to release".
     * [dispatch-thread]
     */
    void (*deinit)(void);

    /**
     * Adds the library's plugins with `registrar->add_plugin`. Return false on
     * failure (log why first): then none of the library's plugins is used.
     * Required.
     * [dispatch-thread]
     */
    bool (*register_plugins)(const pb_registrar_t *registrar);
} pb_entry_t;

/** The type of the entry symbol, for hosts and bindings that look it up. */
typedef const pb_entry_t *(*pb_entry_fn)(void);

/** The name of the entry symbol. */
#define PB_ENTRY_SYMBOL "plugboard_entry"

#if !defined(__swift__)
/**
 * The entry symbol every plugin library exports: a C function with no
 * arguments returning the library's entry record (NULL if the library cannot
 * be used; the load report then says so). It must not call back into the host;
 * it may be called more than once and must return the same record each time.
 * [dispatch-thread]
 */
PB_EXPORT const pb_entry_t *plugboard_entry(void);
#endif

PB_END_DECLS
