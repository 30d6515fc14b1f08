/*
 * Runs a program with pidfd_open refused (EPERM), as some containers refuse it: `no_pidfd PROGRAM
 * [ARG …]`. The seccomp filter is inherited by every process the program starts (workers too).
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: no_pidfd PROGRAM [ARG ...]\n");
        return 2;
    }
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == NULL || seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(pidfd_open), 0) != 0 ||
        seccomp_load(filter) != 0) {
        fprintf(stderr, "no_pidfd: cannot install the seccomp filter\n");
        return 2;
    }
    seccomp_release(filter);
    execv(argv[1], argv + 1);
    perror("no_pidfd: execv");
    return 2;
}
