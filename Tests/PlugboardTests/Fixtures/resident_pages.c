/*
 * A library for ResidentPagesTests: a function whose code the test rewrites in memory, as a function
 * hook does, and a table of constants, each on pages of their own.
 */
#include <stdint.h>

/** Answers 7, until its code is rewritten. */
__attribute__((visibility("default"), noinline, aligned(4096))) int resident_answer(void) { return 7; }

/** Code on the pages after, so that resident_answer's page is a whole page inside the code segment. */
__attribute__((visibility("default"), noinline, aligned(4096))) int resident_after(void) { return 1; }
__attribute__((visibility("default"), noinline, aligned(4096))) int resident_last(void) { return 2; }

/** Constants over several pages, all of them 3. */
__attribute__((visibility("default"), aligned(4096))) const uint8_t resident_constants[4 * 4096] = {
#define THREE4 3, 3, 3, 3
#define THREE16 THREE4, THREE4, THREE4, THREE4
#define THREE64 THREE16, THREE16, THREE16, THREE16
#define THREE256 THREE64, THREE64, THREE64, THREE64
#define THREE1K THREE256, THREE256, THREE256, THREE256
#define THREE4K THREE1K, THREE1K, THREE1K, THREE1K
    THREE4K, THREE4K, THREE4K, THREE4K
};
