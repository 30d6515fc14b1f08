/*
 * Linked into a test plugin: prints, from the library's constructor, the resource limits and
 * the core-dump setting its process runs under, one line: "limits data=N cpu=N nofile=N core=N nproc=N"
 * (N the soft limit, or "unlimited").
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/resource.h>

static void print_limit(const char *name, int resource) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0) {
        printf(" %s=?", name);
    } else if (limit.rlim_cur == RLIM_INFINITY) {
        printf(" %s=unlimited", name);
    } else {
        printf(" %s=%llu", name, (unsigned long long)limit.rlim_cur);
    }
}

__attribute__((constructor)) static void print_limits(void) {
    printf("limits");
    print_limit("data", RLIMIT_DATA);
    print_limit("cpu", RLIMIT_CPU);
    print_limit("nofile", RLIMIT_NOFILE);
    print_limit("core", RLIMIT_CORE);
    print_limit("nproc", RLIMIT_NPROC);
    printf("\n");
    fflush(stdout);
}
