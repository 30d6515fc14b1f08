/*
 * Linked into a test plugin: tries, from the library's constructor, to read the file the
 * macro READ_TARGET names, and prints "read allowed" or "read blocked <errno>".
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void try_read(void) {
    int fd = open(READ_TARGET, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        printf("read allowed\n");
        close(fd);
    } else {
        printf("read blocked %d\n", errno);
    }
    fflush(stdout);
}
