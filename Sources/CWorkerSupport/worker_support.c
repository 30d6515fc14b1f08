/* The functions are inline in the header; this file gives the target a source to build. */
#include "worker_support.h"
