/* Plugboard C ABI: functions a plugin offers to be called by name (since 1.2). */
#pragma once

#include "macros.h"
#include "types.h"

PB_BEGIN_DECLS

/*
 * A plugin may list functions (pb_plugin_t.functions): a unit converter, a
 * checksum, a query. The host and other plugins call one by its address,
 * "plugin-id.function" (e.g. "com.example.units.convert"), with arguments
 * checked against the declared signature before any call; the host calls it
 * through libffi, so the function is an ordinary C function of that signature.
 *
 * Signatures. A small type language: `RETURN (ARG, ARG, ...)`, e.g.
 * "double (int32, double, string)", "void ()", "bytes (bytes)". Spaces and tabs
 * are allowed around every name and punctuation mark; nothing else is: no
 * parameter names, no "(void)" for an empty list, nothing after ")". At most
 * 32 arguments. The types and the C types they stand for:
 *
 *   void                        return only: nothing
 *   bool                        bool
 *   int8 int16 int32 int64      int8_t int16_t int32_t int64_t
 *   uint8 uint16 uint32 uint64  uint8_t uint16_t uint32_t uint64_t
 *   float double                float double
 *   string                      const char *: UTF-8, NUL-terminated
 *   bytes                       argument: TWO C parameters, `const uint8_t *data,
 *                               size_t size`; return: a pb_bytes_t by value
 *   pointer                     void *: opaque, passed through unchanged
 *
 * So "bytes (bytes, int32)" is the C function
 * `pb_bytes_t f(const uint8_t *data, size_t size, int32_t n)`.
 *
 * Arguments the host passes. A `string` is never NULL, is valid UTF-8 without
 * a NUL byte inside, and is owned by the host until the function returns. A
 * `bytes` argument's data is never NULL (a zero-length buffer gets a valid
 * pointer to no bytes) and is owned by the host until the function returns.
 * Copy what you keep.
 *
 * Results the plugin returns. A `string` must not be NULL and must be valid
 * UTF-8; a `bytes` result's data may be NULL only when its size is 0. The host
 * reports a breach as an error of that call. The host copies a returned string
 * or buffer before anything else runs on the calling thread, then:
 *   - if the function's `release` is not NULL, calls `release(result)` once,
 *     on the same thread, with the returned `const char *` (string) or
 *     `pb_bytes_t.data` (bytes) when that pointer is not NULL: a result
 *     allocated per call (`malloc` then `release = free` is the usual pair);
 *   - if `release` is NULL, the result stays the plugin's: it must stay valid
 *     until the function is next called on the same thread, or for good (a
 *     static string, a buffer kept per thread).
 *   `release` is never called for any other return type.
 *
 * Threads. In this version the host calls functions on the thread that uses
 * the host (its dispatch thread), one call at a time, never re-entrantly;
 * write them [thread-safe] all the same: later versions (cross-plugin calls)
 * call them from any plugin's thread.
 *
 * Checking. The host reads every declaration once, in `add_plugin`: a bad one
 * (name, signature, NULL function, a name declared twice, a struct_size too
 * small) refuses THAT function, with a warning in the load report naming the
 * plugin, the function and the cause; the plugin and its other functions are
 * used as usual, and a refused function is never called.
 */

/** A byte buffer returned by value from a function whose signature returns `bytes`. Since 1.2. */
typedef struct pb_bytes {
    /** The bytes; NULL only when `size` is 0. Who frees it: see the function's `release`. */
    const uint8_t *data;
    /** The number of bytes. */
    size_t size;
} pb_bytes_t;

/**
 * One function a plugin offers. Plugin-owned; the host copies `name`,
 * `signature` and `doc` in `add_plugin`, and keeps `function` and `release`:
 * both must stay valid until the library's `deinit` returns. Since 1.2.
 */
typedef struct pb_function {
    /** sizeof(pb_function_t) the plugin was compiled with. */
    uint32_t struct_size;
    /**
     * The function's name, unique in its plugin: 1 to 64 bytes of `[a-z_]`
     * first and `[a-z0-9_]` after, e.g. "convert". Required.
     */
    const char *name;
    /** The signature in the type language above, e.g. "double (string, string, double)". Required. */
    const char *signature;
    /** What the function does, UTF-8, for `inspect` and authors. NULL means none. */
    const char *doc;
    /**
     * The C function, cast to a function of no arguments returning void; the
     * host calls it with the C signature `signature` stands for. Required.
     * [thread-safe]
     */
    void (*function)(void);
    /**
     * Frees a returned `string` or `bytes` result after the host copied it
     * (see "Results" above), or NULL when results stay the plugin's.
     * Called on the thread that called `function`. [thread-safe]
     */
    void (*release)(void *result);
} pb_function_t;

PB_END_DECLS
