/*
 * Landlock's kernel interface (Documentation/userspace-api/landlock.rst), the one
 * place it is spelled out: Debian 12's <linux/landlock.h> stops at ABI 2, so the
 * system calls, structures and constants up to ABI 6 are defined here under names
 * of our own (they cannot clash with a newer header's).
 */
#pragma once
#include <stdint.h>
#include <sys/syscall.h>

/* The three system calls: the same numbers on every architecture. */
#define PBS_SYS_landlock_create_ruleset 444
#define PBS_SYS_landlock_add_rule 445
#define PBS_SYS_landlock_restrict_self 446

/* landlock_create_ruleset flag: returns the highest ABI version instead of a ruleset. */
#define PBS_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)

/* struct landlock_ruleset_attr, as of ABI 6 (the kernel takes a shorter one from older callers). */
struct pbs_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

/* Rule types. */
#define PBS_LANDLOCK_RULE_PATH_BENEATH 1
#define PBS_LANDLOCK_RULE_NET_PORT 2 /* ABI 4 */

/* struct landlock_path_beneath_attr (packed in the kernel's header). */
struct pbs_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* struct landlock_net_port_attr (ABI 4). */
struct pbs_landlock_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

/* Filesystem access rights, with the ABI that brought each. */
#define PBS_FS_EXECUTE (1ULL << 0)
#define PBS_FS_WRITE_FILE (1ULL << 1)
#define PBS_FS_READ_FILE (1ULL << 2)
#define PBS_FS_READ_DIR (1ULL << 3)
#define PBS_FS_REMOVE_DIR (1ULL << 4)
#define PBS_FS_REMOVE_FILE (1ULL << 5)
#define PBS_FS_MAKE_CHAR (1ULL << 6)
#define PBS_FS_MAKE_DIR (1ULL << 7)
#define PBS_FS_MAKE_REG (1ULL << 8)
#define PBS_FS_MAKE_SOCK (1ULL << 9)
#define PBS_FS_MAKE_FIFO (1ULL << 10)
#define PBS_FS_MAKE_BLOCK (1ULL << 11)
#define PBS_FS_MAKE_SYM (1ULL << 12)
#define PBS_FS_REFER (1ULL << 13)     /* ABI 2 */
#define PBS_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define PBS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */

/* The rights that apply to a file (not a folder): a rule on a file may hold only these. */
#define PBS_FS_FILE_RIGHTS (PBS_FS_EXECUTE | PBS_FS_WRITE_FILE | PBS_FS_READ_FILE | PBS_FS_TRUNCATE | PBS_FS_IOCTL_DEV)

/* Network access rights (ABI 4): TCP only. */
#define PBS_NET_BIND_TCP (1ULL << 0)
#define PBS_NET_CONNECT_TCP (1ULL << 1)

/* Scopes (ABI 6): what the sandboxed process cannot reach outside its domain. */
#define PBS_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define PBS_SCOPE_SIGNAL (1ULL << 1)
