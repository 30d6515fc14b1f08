/*
 * Runs a program with system calls refused (EPERM), as some containers and systems refuse them:
 * `refusing CALL[,CALL …] PROGRAM [ARG …]` (pidfd_open, say, or unshare). The seccomp filter is
 * inherited by every process the program starts (workers too).
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: refusing CALL[,CALL ...] PROGRAM [ARG ...]\n");
        return 2;
    }
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == NULL) {
        fprintf(stderr, "refusing: cannot make a seccomp filter\n");
        return 2;
    }
    for (char *call = strtok(argv[1], ","); call != NULL; call = strtok(NULL, ",")) {
        int number = seccomp_syscall_resolve_name(call);
        if (number == __NR_SCMP_ERROR || seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), number, 0) != 0) {
            fprintf(stderr, "refusing: cannot refuse %s\n", call);
            return 2;
        }
    }
    if (seccomp_load(filter) != 0) {
        fprintf(stderr, "refusing: cannot install the seccomp filter\n");
        return 2;
    }
    seccomp_release(filter);
    execv(argv[2], argv + 2);
    perror("refusing: execv");
    return 2;
}
