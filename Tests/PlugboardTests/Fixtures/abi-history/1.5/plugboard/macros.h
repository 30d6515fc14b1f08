/* Plugboard C ABI: portability macros. */
#pragma once

/** Marks the one symbol a plugin library exports (`plugboard_entry`).
 *  Build plugins with hidden visibility (`-fvisibility=hidden`) so that this
 *  is the only exported symbol. */
#if defined(__GNUC__) || defined(__clang__)
#  define PB_EXPORT __attribute__((visibility("default")))
#else
#  define PB_EXPORT
#endif

/** Opens and closes `extern "C"` in C++ translation units. */
#ifdef __cplusplus
#  define PB_BEGIN_DECLS extern "C" {
#  define PB_END_DECLS }
#else
#  define PB_BEGIN_DECLS
#  define PB_END_DECLS
#endif
