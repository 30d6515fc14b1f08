/* Plugboard C ABI: the files host service, the application's sandboxed container. */
#pragma once

#include "../macros.h"
#include "../types.h"

PB_BEGIN_DECLS

/* The host table (host.h), named by its struct tag so this header stands alone. */
struct pb_host;

/*
 * Paths. Every path is a container path: UTF-8, NUL-terminated, relative to
 * the container root and starting with one of its directories: "Documents",
 * "Documents/Inbox", "Library" or "tmp" (e.g. "Documents/notes/today.txt").
 * "..", ".", empty segments, absolute paths and symbolic links are refused
 * with PB_ERR_INVALID_PATH; nothing outside the container is ever touched.
 * A directory itself ("Documents") is taken by `list`, `attributes` and
 * `exists`; the other functions act on a name in one.
 *
 * Limits. Also refused with PB_ERR_INVALID_PATH, before anything is touched,
 * with a message that names the character or the limit and the value:
 * - bytes that are not UTF-8 in a path, a new name or an extension (never
 *   repaired: two such names would become the same file);
 * - a control character (byte 0x01-0x1F or 0x7F) anywhere in a path, a new
 *   name or an extension ("contains the control character U+001B");
 * - a component longer than 255 bytes (NAME_MAX);
 * - a path longer than 4095 bytes, so it always fits `char path[PATH_MAX]`;
 * - a path through more than 128 folders, its directory included
 *   ("tmp/a/b.txt" is 2 deep): far deeper than any real layout, and every
 *   tree in the container stays one that other programs walk without trouble
 *   ("the container path is 129 folders deep; the limit is 128").
 * The new path of `rename` and `change_extension` is held to the same limits.
 *
 * The host's folder. "Library/Plugboard State", where the host keeps every
 * plugin's saved state (each plugin reaches its own through `save_state` and
 * `restore_state`), is out of reach: a path in it, or a destination or new name
 * that would be it, is refused with PB_ERR_PERMISSION, and `list("Library")`
 * leaves it out.
 *
 * Sizes. A `size_t` argument that no buffer can have (above PTRDIFF_MAX, such
 * as SIZE_MAX) or above the function's stated maximum is PB_ERR_INVALID_ARGUMENT
 * (`write`) or taken as 0 (`last_error`'s capacity); never a crash.
 *
 * Errors. Each function returns PB_OK or a negative PB_ERR_* code; the
 * sentence that explains the last failure on the calling thread (operation,
 * path, cause, system error) is fetched with `last_error`. Since 1.3, a host
 * whose policy denies the library the files service answers every function
 * (but `last_error` and `free_buffer`) with PB_ERR_DENIED, touching nothing.
 *
 * Every function is [thread-safe].
 */

/** Flag: replace an existing destination. Without it, an existing destination is PB_ERR_EXISTS. */
#define PB_FILES_OVERWRITE 1u
/** Flag: create missing folders of the destination. */
#define PB_FILES_CREATE_FOLDERS 2u

/** A byte buffer the host allocated for the plugin; release it with `pb_files_t.free_buffer`. */
typedef struct pb_buffer {
    /** The bytes, followed by one NUL byte that `size` does not count (so text is a C string). NULL when empty. */
    uint8_t *data;
    /** The number of bytes, without the trailing NUL. */
    size_t size;
} pb_buffer_t;

/** What kind of thing a path names. */
typedef int32_t pb_file_kind_t;
#define PB_FILE_KIND_FILE 0
#define PB_FILE_KIND_DIRECTORY 1
#define PB_FILE_KIND_SYMBOLIC_LINK 2
#define PB_FILE_KIND_OTHER 3

/** A file's attributes, filled by `attributes`. */
typedef struct pb_file_attributes {
    /** sizeof(pb_file_attributes_t) of the plugin: set it before the call; the host fills only that much. */
    uint32_t struct_size;
    /** One of PB_FILE_KIND_*. */
    pb_file_kind_t kind;
    /** Size in bytes. */
    uint64_t size;
    /** POSIX permission bits (e.g. 0644). */
    uint32_t permissions;
    /** Owner user id. */
    uint32_t owner_id;
    /** Last modification, nanoseconds since 1970-01-01 UTC. */
    int64_t modified_ns;
    /** Creation, nanoseconds since 1970-01-01 UTC; 0 when the file system does not record it. */
    int64_t created_ns;
} pb_file_attributes_t;

/**
 * The files service. Owned by the host; valid memory for the life of the
 * process, like the `pb_host_t` that points to it; after the library's
 * `deinit` every function returns PB_ERR_WRONG_STATE. Read only the fields `struct_size` covers.
 */
typedef struct pb_files {
    /** sizeof(pb_files_t) of the host. */
    uint32_t struct_size;

    /* ---- since 1.1 ---- */

    /**
     * Writes `size` bytes atomically (temporary file, fsync, rename). `size` is
     * at most 1 GiB (1073741824), or, for a plugin in a worker, what one request
     * carries (64 MiB less 64 KiB); more is PB_ERR_INVALID_ARGUMENT, as is NULL
     * `data` with a non-zero `size`. Flags: PB_FILES_*. [thread-safe]
     */
    pb_status_t (*write)(const struct pb_host *host, const char *path, const void *data, size_t size, uint32_t flags);

    /**
     * Reads a whole file into `out` (host-allocated; release with `free_buffer`).
     * A file of more than 1 GiB, or, for a plugin in a worker, of more than one
     * reply carries (64 MiB less 64 bytes), is PB_ERR_INVALID_ARGUMENT. [thread-safe]
     */
    pb_status_t (*read)(const struct pb_host *host, const char *path, pb_buffer_t *out);

    /** Releases a buffer the host filled; `buffer` is zeroed. NULL or an empty buffer is fine. [thread-safe] */
    void (*free_buffer)(const struct pb_host *host, pb_buffer_t *buffer);

    /** Deletes a file, a link, or an empty folder. [thread-safe] */
    pb_status_t (*remove)(const struct pb_host *host, const char *path);

    /** Renames within the same folder; `new_name` is one path component. Flags: PB_FILES_OVERWRITE. [thread-safe] */
    pb_status_t (*rename)(const struct pb_host *host, const char *path, const char *new_name, uint32_t flags);

    /** Moves `from` to `to`, possibly into another directory. Flags: PB_FILES_*. [thread-safe] */
    pb_status_t (*move)(const struct pb_host *host, const char *from, const char *to, uint32_t flags);

    /** Copies `from` to `to` (atomically, like `write`). Flags: PB_FILES_*. [thread-safe] */
    pb_status_t (*copy)(const struct pb_host *host, const char *from, const char *to, uint32_t flags);

    /**
     * Changes the extension after the last dot ("" removes it; a leading-dot
     * name like ".profile" has none, so one is added). The new container path
     * goes to `new_path` (host-allocated; may be NULL if not wanted). Flags:
     * PB_FILES_OVERWRITE. [thread-safe]
     */
    pb_status_t (*change_extension)(const struct pb_host *host, const char *path, const char *extension,
                                    uint32_t flags, pb_buffer_t *new_path);

    /**
     * Lists a directory ("Documents") or a folder in one ("Documents/notes")
     * as JSON text: an array of {"name": "...", "kind": "file" | "directory" |
     * "symbolic-link" | "other"}, sorted by name. [thread-safe]
     */
    pb_status_t (*list)(const struct pb_host *host, const char *path, pb_buffer_t *out);

    /** Fills `out` (set `out->struct_size` first). Does not follow a final symbolic link. [thread-safe] */
    pb_status_t (*attributes)(const struct pb_host *host, const char *path, pb_file_attributes_t *out);

    /** Sets `*exists` to whether the path names anything. PB_OK unless the path is invalid or unreachable. [thread-safe] */
    pb_status_t (*exists)(const struct pb_host *host, const char *path, bool *exists);

    /**
     * Copies the message of the last failure of this library's calls on the
     * calling thread into `buffer` (NUL-terminated, truncated to `capacity`),
     * and returns the message's full length in bytes. "" when the last call
     * succeeded. A `capacity` of 0, or above PTRDIFF_MAX, writes nothing (ask
     * for the length with NULL and 0, then allocate). [thread-safe]
     */
    size_t (*last_error)(const struct pb_host *host, char *buffer, size_t capacity);
} pb_files_t;

PB_END_DECLS
