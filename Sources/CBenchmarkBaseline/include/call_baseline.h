/*
 * The call baselines: what a call of a plugin function costs without
 * Plugboard's engine. `plugboard-benchmark` puts the engine's in-process call
 * of `double f(int32_t, double, const char *)` next to them.
 *
 * Both loops call `function(3, 2.5, "abc")` `iterations` times, add up the
 * results into `*sum` (so no call can be left out) and return the elapsed
 * nanoseconds on CLOCK_MONOTONIC. `function` is a plugin's declared C function
 * (`pb_function_t.function`), owned by its library, which must stay loaded.
 * Use them from any one thread at a time.
 */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A plugin function as `pb_function_t` declares it: cast to its real type before a call. */
typedef void (*pbb_function_t)(void);

/** The floor: a direct call through a C function pointer of the real type. */
uint64_t pbb_call_direct(pbb_function_t function, uint64_t iterations, double *sum);

/**
 * Raw libffi, as a C program would use it: the `ffi_cif` prepared once, before
 * the clock starts, then `ffi_call` with the argument pointers per call.
 * Returns 0 when libffi cannot prepare the call.
 */
uint64_t pbb_call_ffi(pbb_function_t function, uint64_t iterations, double *sum);

#ifdef __cplusplus
}
#endif
