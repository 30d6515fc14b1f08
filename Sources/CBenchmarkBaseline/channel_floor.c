/* The channel floor of the benchmark; see channel_floor.h. */
#define _GNU_SOURCE
#include "channel_floor.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchmark_baseline.h"

enum { PBB_FLOOR_MAX_MESSAGE = 4096 };

struct pbb_floor {
    size_t count;
    size_t request_size;
    size_t reply_size;
    /** The parent's end of each channel, -1 once closed. */
    int *channels;
    /** Each echo process, 0 once reaped. */
    pid_t *pids;
};

/** Writes a one-line reason into `error`. */
static void pbb_floor_fail(char *error, size_t error_size, const char *format, ...) {
    if (error_size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
}

/** Reads exactly `size` bytes; false at the end of the channel or on an error. */
static bool pbb_read_all(int fd, char *buffer, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t count = read(fd, buffer + done, size - done);
        if (count > 0) {
            done += (size_t)count;
        } else if (count == 0 || errno != EINTR) {
            return false;
        }
    }
    return true;
}

/** Writes exactly `size` bytes; false on an error. */
static bool pbb_write_all(int fd, const char *buffer, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t count = write(fd, buffer + done, size - done);
        if (count > 0) {
            done += (size_t)count;
        } else if (count < 0 && errno != EINTR) {
            return false;
        }
    }
    return true;
}

/** The body of an echo process: answer each request until the channel ends. Never returns. */
static void pbb_echo(int fd, size_t request_size, size_t reply_size) {
    char request[PBB_FLOOR_MAX_MESSAGE];
    char reply[PBB_FLOOR_MAX_MESSAGE] = {0};
    while (pbb_read_all(fd, request, request_size)) {
        reply[0] = request[0];
        if (!pbb_write_all(fd, reply, reply_size)) break;
    }
    _exit(0);
}

pbb_floor_t *pbb_floor_open(size_t processes, size_t request_size, size_t reply_size, char *error,
                            size_t error_size) {
    if (processes == 0 || request_size == 0 || request_size > PBB_FLOOR_MAX_MESSAGE || reply_size == 0 ||
        reply_size > PBB_FLOOR_MAX_MESSAGE) {
        pbb_floor_fail(error, error_size, "a floor needs at least one process and messages of 1 to %d bytes",
                       PBB_FLOOR_MAX_MESSAGE);
        return NULL;
    }
    pbb_floor_t *floor = calloc(1, sizeof *floor);
    int *channels = calloc(processes, sizeof *channels);
    pid_t *pids = calloc(processes, sizeof *pids);
    if (floor == NULL || channels == NULL || pids == NULL) {
        free(floor);
        free(channels);
        free(pids);
        pbb_floor_fail(error, error_size, "out of memory for %zu echo processes", processes);
        return NULL;
    }
    *floor = (pbb_floor_t){.request_size = request_size, .reply_size = reply_size, .channels = channels, .pids = pids};
    pid_t parent = getpid();
    for (size_t index = 0; index < processes; index++) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
            pbb_floor_fail(error, error_size, "socketpair for echo process %zu: %s", index, strerror(errno));
            pbb_floor_close(floor);
            return NULL;
        }
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(0);
            for (size_t other = 0; other < floor->count; other++) close(floor->channels[other]);
            close(pair[0]);
            pbb_echo(pair[1], request_size, reply_size);
        }
        int forkError = errno;
        close(pair[1]);
        if (pid < 0) {
            close(pair[0]);
            pbb_floor_fail(error, error_size, "fork of echo process %zu: %s", index, strerror(forkError));
            pbb_floor_close(floor);
            return NULL;
        }
        floor->channels[index] = pair[0];
        floor->pids[index] = pid;
        floor->count = index + 1;
    }
    return floor;
}

uint64_t pbb_floor_round_trips(pbb_floor_t *floor, uint64_t iterations) {
    char request[PBB_FLOOR_MAX_MESSAGE] = {0};
    char reply[PBB_FLOOR_MAX_MESSAGE];
    uint64_t start = pbb_now_ns();
    for (uint64_t round = 0; round < iterations; round++) {
        for (size_t index = 0; index < floor->count; index++) {
            if (!pbb_write_all(floor->channels[index], request, floor->request_size) ||
                !pbb_read_all(floor->channels[index], reply, floor->reply_size)) {
                return 0;
            }
        }
    }
    return pbb_now_ns() - start;
}

/** What the reader thread of `pbb_floor_round_trips_handoff` shares with the calling thread. */
typedef struct pbb_handoff {
    const pbb_floor_t *floor;
    uint64_t iterations;
    sem_t replied;
    bool failed;
} pbb_handoff_t;

/** The reader thread: reads each reply in call order and wakes the caller. */
static void *pbb_handoff_reader(void *argument) {
    pbb_handoff_t *handoff = argument;
    char reply[PBB_FLOOR_MAX_MESSAGE];
    for (uint64_t round = 0; round < handoff->iterations; round++) {
        for (size_t index = 0; index < handoff->floor->count; index++) {
            if (!pbb_read_all(handoff->floor->channels[index], reply, handoff->floor->reply_size)) {
                handoff->failed = true;
                sem_post(&handoff->replied);
                return NULL;
            }
            sem_post(&handoff->replied);
        }
    }
    return NULL;
}

uint64_t pbb_floor_round_trips_handoff(pbb_floor_t *floor, uint64_t iterations) {
    pbb_handoff_t handoff = {.floor = floor, .iterations = iterations};
    if (sem_init(&handoff.replied, 0, 0) != 0) return 0;
    pthread_t reader;
    if (pthread_create(&reader, NULL, pbb_handoff_reader, &handoff) != 0) {
        sem_destroy(&handoff.replied);
        return 0;
    }
    char request[PBB_FLOOR_MAX_MESSAGE] = {0};
    bool failed = false;
    uint64_t start = pbb_now_ns();
    for (uint64_t round = 0; round < iterations && !failed; round++) {
        for (size_t index = 0; index < floor->count && !failed; index++) {
            failed = !pbb_write_all(floor->channels[index], request, floor->request_size);
            while (!failed && sem_wait(&handoff.replied) != 0) {
                failed = errno != EINTR;
            }
            failed = failed || handoff.failed;
        }
    }
    uint64_t elapsed = pbb_now_ns() - start;
    if (failed) {
        // The reader may still block on a reply that will not come: shutting the channels down wakes it.
        for (size_t index = 0; index < floor->count; index++) shutdown(floor->channels[index], SHUT_RDWR);
    }
    pthread_join(reader, NULL);
    sem_destroy(&handoff.replied);
    return failed ? 0 : elapsed;
}

void pbb_floor_close(pbb_floor_t *floor) {
    if (floor == NULL) return;
    // Each echo process sees the end of its channel and exits; SIGKILL ends one that does not.
    for (size_t index = 0; index < floor->count; index++) close(floor->channels[index]);
    for (size_t index = 0; index < floor->count; index++) {
        int status;
        if (waitpid(floor->pids[index], &status, WNOHANG) == 0) {
            struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};
            nanosleep(&pause, NULL);
            if (waitpid(floor->pids[index], &status, WNOHANG) == 0) {
                kill(floor->pids[index], SIGKILL);
                while (waitpid(floor->pids[index], &status, 0) < 0 && errno == EINTR) {}
            }
        }
    }
    free(floor->channels);
    free(floor->pids);
    free(floor);
}
