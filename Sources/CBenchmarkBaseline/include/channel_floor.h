/*
 * The channel floor: the least a call to a plugin in a worker process can
 * cost. `plugboard-benchmark` puts the host's worker round trip next to it.
 *
 * A floor is N echo processes (one per plugin, as the host runs one worker per
 * library), each forked with one end of a `socketpair(AF_UNIX, SOCK_STREAM)`.
 * An echo process reads a request of a fixed size and writes a reply of a
 * fixed size, until its end of the channel is closed. The parent sends one
 * request to each process in turn and blocks on each reply, as the host calls
 * its workers one after the other. No encoding, no decoding, no checks.
 *
 * Use a floor from one thread. The echo processes are forked from the calling
 * process and run only async-signal-safe code (`read`, `write`, `_exit`).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** N echo processes and the parent's ends of their channels. */
typedef struct pbb_floor pbb_floor_t;

/**
 * Forks `processes` echo processes that answer each `request_size`-byte
 * request with a `reply_size`-byte reply (both 1…4096). Returns NULL on
 * failure, with a one-line reason in `error` (`error_size` bytes, always
 * NUL-terminated when `error_size` > 0); the processes already forked are
 * ended and reaped. Free the result with `pbb_floor_close`.
 */
pbb_floor_t *pbb_floor_open(size_t processes, size_t request_size, size_t reply_size, char *error,
                            size_t error_size);

/**
 * Runs `iterations` rounds of: for each echo process, write a request and
 * block on reading its whole reply, on the calling thread. Returns the elapsed
 * nanoseconds, 0 when the channel failed (an echo process died).
 */
uint64_t pbb_floor_round_trips(pbb_floor_t *floor, uint64_t iterations);

/**
 * The same rounds with the host's thread handoffs: a second thread reads every
 * reply and wakes the calling thread through a semaphore (`sem_post`), which
 * waits on it (`sem_wait`) after each write. The thread is started before and
 * joined after the timed loop. Returns the elapsed nanoseconds, 0 when the
 * channel or the thread failed.
 */
uint64_t pbb_floor_round_trips_handoff(pbb_floor_t *floor, uint64_t iterations);

/** Closes the channels (each echo process then exits), reaps the echo processes (SIGKILL to one that has not exited after 1 ms) and frees the floor. NULL is ignored. */
void pbb_floor_close(pbb_floor_t *floor);

#ifdef __cplusplus
}
#endif
