/*
 * libffi for Swift: <ffi.h>, and the built-in ffi_type descriptions as
 * functions. Swift 6 refuses `&ffi_type_sint32` (a global `var` is shared
 * mutable state); an accessor returning its address is fine. The types are
 * libffi's own: never modified, valid for the life of the process.
 * (Including <ffi.h> finds it in the multiarch include directory, where a
 * module map's `header` path could not.)
 */
#pragma once
#include <ffi.h>
#include <stdint.h>

static inline ffi_type *cffi_void(void) { return &ffi_type_void; }
static inline ffi_type *cffi_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *cffi_sint8(void) { return &ffi_type_sint8; }
static inline ffi_type *cffi_uint16(void) { return &ffi_type_uint16; }
static inline ffi_type *cffi_sint16(void) { return &ffi_type_sint16; }
static inline ffi_type *cffi_uint32(void) { return &ffi_type_uint32; }
static inline ffi_type *cffi_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *cffi_uint64(void) { return &ffi_type_uint64; }
static inline ffi_type *cffi_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *cffi_float(void) { return &ffi_type_float; }
static inline ffi_type *cffi_double(void) { return &ffi_type_double; }
static inline ffi_type *cffi_pointer(void) { return &ffi_type_pointer; }

/** The ffi_type of C's `size_t` on this machine. */
static inline ffi_type *cffi_size(void) {
#if SIZE_MAX == UINT64_MAX
    return &ffi_type_uint64;
#else
    return &ffi_type_uint32;
#endif
}

/** The ffi_type of C's `bool` (one byte, 0 or 1, as C compilers lay it out). */
static inline ffi_type *cffi_bool(void) { return &ffi_type_uint8; }
