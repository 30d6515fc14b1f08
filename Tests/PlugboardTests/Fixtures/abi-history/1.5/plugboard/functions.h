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
 * Threads. The host calls a function from its dispatch thread (`plugboard call`,
 * an embedding application), and, through `pb_host_t.invoke`, from any thread
 * of any plugin that invokes it, also at the same time and re-entrantly (a
 * function that invokes another that invokes it again): write every function
 * [thread-safe] and re-entrant. In a worker, an invoked function runs on the
 * worker's main thread when it is idle, else on another thread of the worker.
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

/** Which field of a pb_value_t holds the value. Since 1.2. */
typedef int32_t pb_value_kind_t;
/** No value: the result of a `void` function. */
#define PB_VALUE_VOID 0
/** `boolean`: for a `bool` argument or result. */
#define PB_VALUE_BOOL 1
/** `integer`: a signed integer, for any integer argument it fits; the result of an `intN` function. */
#define PB_VALUE_INT 2
/** `unsigned_integer`: for any integer argument it fits; the result of a `uintN` function. */
#define PB_VALUE_UINT 3
/** `float_value`: for a `float` or `double` argument; the result of a `float` function. */
#define PB_VALUE_FLOAT 4
/** `double_value`: for a `double` argument, or a `float` one within float's range; the result of a `double` function. */
#define PB_VALUE_DOUBLE 5
/** `string`: NUL-terminated UTF-8, for a `string` argument or result. */
#define PB_VALUE_STRING 6
/** `bytes`: for a `bytes` argument or result. */
#define PB_VALUE_BYTES 7
/** `pointer`: for a `pointer` argument or result; only between plugins in one process. */
#define PB_VALUE_POINTER 8

/**
 * One argument or result of `pb_host_t.invoke` (host.h). `kind` says which one
 * field holds the value; the others are not read (zero them: `pb_value_t v = {0}`).
 * The kinds are those of the host's Swift API: integers travel as 64-bit
 * `integer` or `unsigned_integer` whatever the declared width, and the host
 * checks each argument against the declared type as for every call (`300` for
 * an `int8` is refused, a string for a `double` too). Since 1.2.
 *
 * As an argument, owned by the caller and borrowed for the call only: `string`
 * non-NULL, NUL-terminated UTF-8; `bytes.data` NULL only when `bytes.size` is 0.
 * As a result, written by the host: a `string` or `bytes.data` is a copy the
 * host allocated for the caller, who frees it with `pb_host_t.release_value`.
 */
typedef struct pb_value {
    /** A PB_VALUE_* kind. */
    pb_value_kind_t kind;
    /** The value of a PB_VALUE_BOOL. */
    bool boolean;
    /** The value of a PB_VALUE_INT. */
    int64_t integer;
    /** The value of a PB_VALUE_UINT. */
    uint64_t unsigned_integer;
    /** The value of a PB_VALUE_FLOAT. */
    float float_value;
    /** The value of a PB_VALUE_DOUBLE. */
    double double_value;
    /** The value of a PB_VALUE_STRING. */
    const char *string;
    /** The value of a PB_VALUE_BYTES. */
    pb_bytes_t bytes;
    /** The value of a PB_VALUE_POINTER. */
    void *pointer;
} pb_value_t;

PB_END_DECLS
