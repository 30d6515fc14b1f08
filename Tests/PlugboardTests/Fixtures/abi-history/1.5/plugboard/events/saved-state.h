/* Plugboard C ABI: saved state, kept across runs (since 1.3). */
#pragma once

#include "../macros.h"
#include "../types.h"
#include "../functions.h"

PB_BEGIN_DECLS

/** The largest state a plugin may save: 16 MiB. A larger one is refused with a warning and the previous file is kept. Since 1.3. */
#define PB_SAVED_STATE_MAX_SIZE (16777216)

/**
 * Saved state (the memento pattern): the host keeps a plugin's bytes from one
 * run to the next, one file per plugin id in the container's
 * `Library/Plugboard State/`, with the plugin's version and a checksum. Lives
 * with the event vtables because it is a concern like them: a vtable the
 * plugin fills, called by the host at two moments of the lifecycle.
 *
 * When. `restore_state` is called once per run, before will-finish-launching,
 * in dispatch order (higher priority first, then id), and only when a valid
 * state file exists for the plugin's id. `save_state` is called once per run,
 * AFTER the will-terminate callbacks (so a plugin can finish its work in
 * will_terminate and then be asked), in the same order; also after a signal
 * (SIGINT, SIGTERM) that ends the run, not after a second one.
 *
 * Failures. A state file that is missing means no state: `restore_state` is
 * not called. One that is corrupt, truncated, foreign or saved for another id
 * means no state too, plus a warning naming the file and the cause. A
 * `save_state` that fails (a status other than PB_OK, `data` NULL with a size,
 * a size over PB_SAVED_STATE_MAX_SIZE) or crashes or times out in a worker
 * keeps the previous file unchanged, with a warning; so does a plugin whose
 * worker crashed earlier in the run (it is not asked). A worker restarted
 * after a crash (`plugboard run --restart N`) gets `restore_state` again,
 * with the saved state, before its next event. Files are written
 * atomically (a new file renamed over the old): a file is the old state or the
 * new one, never a part.
 *
 * Owned by the plugin; valid until `deinit` returns. A NULL slot is skipped:
 * a plugin may only save (and read its state elsewhere) or only restore.
 */
typedef struct pb_saved_state {
    /** sizeof(pb_saved_state_t) the plugin was compiled with. */
    uint32_t struct_size;

    /* ---- since 1.3 ---- */

    /**
     * Gives the plugin's state: set `out->data` and `out->size` and return
     * PB_OK (a size of 0 saves an empty state). Return any PB_ERR_* code to
     * save nothing this time (the previous file is kept). `*out` is zeroed
     * before the call. The bytes are the plugin's: the host copies them before
     * anything else runs, then calls `release_state` with them. [dispatch-thread]
     */
    pb_status_t (*save_state)(void *ctx, pb_bytes_t *out);

    /**
     * Frees the `data` of the state `save_state` just returned, after the host
     * copied it; called once, on the same thread, when `data` is not NULL.
     * NULL when the bytes stay the plugin's (they must then stay valid until
     * the next `save_state` call). [dispatch-thread]
     */
    void (*release_state)(void *ctx, const uint8_t *data, size_t size);

    /**
     * Takes back the state saved by a previous run: `size` bytes at `data`
     * (never NULL; owned by the host, valid until the callback returns: copy
     * what you keep), saved by the plugin's version `saved_version` (so a newer
     * version can migrate an older state). Return PB_OK, or a PB_ERR_* code to
     * refuse it: the host reports a warning and the plugin starts without
     * state (the file stays until the next save replaces it). [dispatch-thread]
     */
    pb_status_t (*restore_state)(void *ctx, const char *saved_version, const uint8_t *data, size_t size);
} pb_saved_state_t;

PB_END_DECLS
