/* What a plugin worker needs from Linux that Swift cannot call directly (prctl is variadic). */
#pragma once
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

/** Asks the kernel to send SIGKILL to this process when its parent ends; 0 or -1 with errno. */
static inline int pbw_die_with_parent(void) {
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}
