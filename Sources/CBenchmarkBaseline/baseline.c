#include "benchmark_baseline.h"
