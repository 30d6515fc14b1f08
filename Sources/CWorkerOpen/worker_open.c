/*
 * The plugin worker's `open`, in front of the C library's: libdispatch (under Swift concurrency and
 * Foundation) watches its thread pool by opening /proc/TID/stat of each pool thread, and ends the
 * process (a trap, SIGILL) when it cannot. A confined worker may read its own /proc entry only,
 * where the same file is /proc/self/task/TID/stat. So an `open` of /proc/TID/stat that the sandbox
 * refuses (EACCES) is tried once more there; that path exists only for this process's own threads,
 * so nothing the sandbox denies becomes readable. Every other call is the system call as it was.
 *
 * It is defined in the worker executable only, and libdispatch's reference binds to it (the shipped
 * worker links libdispatch statically; a development build exports `open`, which the dynamic
 * libdispatch references). No library offers this: the alternative, reading all of /proc, would
 * let a plugin read other processes' entries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Whether `path` is /proc/DIGITS/stat. */
static int is_proc_id_stat(const char *path) {
    if (strncmp(path, "/proc/", 6) != 0) return 0;
    const char *digit = path + 6;
    if (*digit < '0' || *digit > '9') return 0;
    while (*digit >= '0' && *digit <= '9') digit++;
    return strcmp(digit, "/stat") == 0;
}

static int open_at(const char *path, int flags, mode_t mode) {
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
        va_list arguments;
        va_start(arguments, flags);
        mode = (mode_t)va_arg(arguments, int);
        va_end(arguments);
    }
    int descriptor = open_at(path, flags, mode);
    if (descriptor >= 0 || errno != EACCES || !is_proc_id_stat(path)) return descriptor;
    char own[64];
    int length = snprintf(own, sizeof own, "/proc/self/task/%s", path + 6);
    if (length <= 0 || (size_t)length >= sizeof own) {
        errno = EACCES;
        return -1;
    }
    int retried = open_at(own, flags, mode);
    if (retried < 0) errno = EACCES;
    return retried;
}
