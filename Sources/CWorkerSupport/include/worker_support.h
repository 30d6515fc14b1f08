/* What a plugin worker needs from Linux that Swift cannot call directly (prctl is variadic). */
#pragma once
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

/** Asks the kernel to send SIGKILL to this process when its parent ends; 0 or -1 with errno. */
static inline int pbw_die_with_parent(void) {
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

/** Gives back this process's mappings of the code and constants of its program and libraries (the
 *  segments they never write) that it has not written to: pages that start-up and loading touched and
 *  serving may not need again. They stay in the page cache, and a page is mapped again when next used.
 *  A page the process did write (a private copy) stays, unless written at the very moment of the call;
 *  so does everything when /proc/self/pagemap, which tells them apart, cannot be read. */
void pbw_release_unwritten_pages(void);
