/* The call baselines of the benchmark; see call_baseline.h. */
#include "call_baseline.h"

#include <ffi.h>
#include <stdint.h>

#include "benchmark_baseline.h"

typedef double (*pbb_weigh_t)(int32_t, double, const char *);

uint64_t pbb_call_direct(pbb_function_t function, uint64_t iterations, double *sum) {
    pbb_weigh_t weigh = (pbb_weigh_t)function;
    double total = 0;
    uint64_t start = pbb_now_ns();
    for (uint64_t i = 0; i < iterations; i++) total += weigh(3, 2.5, "abc");
    uint64_t elapsed = pbb_now_ns() - start;
    *sum = total;
    return elapsed;
}

uint64_t pbb_call_ffi(pbb_function_t function, uint64_t iterations, double *sum) {
    ffi_cif cif;
    ffi_type *types[3] = {&ffi_type_sint32, &ffi_type_double, &ffi_type_pointer};
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 3, &ffi_type_double, types) != FFI_OK) return 0;
    int32_t count = 3;
    double each = 2.5;
    const char *label = "abc";
    void *values[3] = {&count, &each, &label};
    double result = 0;
    double total = 0;
    uint64_t start = pbb_now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        ffi_call(&cif, function, &result, values);
        total += result;
    }
    uint64_t elapsed = pbb_now_ns() - start;
    *sum = total;
    return elapsed;
}
