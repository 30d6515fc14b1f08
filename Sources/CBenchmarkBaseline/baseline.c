/* The hand-written C dispatcher of the benchmark; see benchmark_baseline.h. */
#define _GNU_SOURCE
#include "benchmark_baseline.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plugboard.h"

/** One registered plugin: the copied descriptor and the copied id. */
typedef struct pbb_plugin {
    pb_plugin_t descriptor;
    char *id;
} pbb_plugin_t;

/** One slot copied out of a plugin's vtable, next to the plugin's ctx. */
typedef struct pbb_slot {
    void *function;
    void *ctx;
} pbb_slot_t;

struct pbb_set {
    size_t library_count;
    size_t plugin_count;
    size_t plugin_capacity;
    pbb_plugin_t *plugins;
    /** The non-NULL `will_finish_launching` slots, in plugin order (built on first use). */
    pbb_slot_t *launch_slots;
    size_t launch_slot_count;
    /** The non-NULL `did_receive_memory_warning` slots, in plugin order (built on first use). */
    pbb_slot_t *memory_slots;
    size_t memory_slot_count;
};

/** The registrar's host data: the set being filled. */
typedef struct pbb_registration {
    pbb_set_t *set;
    bool failed;
} pbb_registration_t;

uint64_t pbb_now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

/** `pb_host_t.log`: the baseline drops every message. */
static void pbb_log(const pb_host_t *host, const char *plugin_id, pb_log_level_t level, const char *message) {
    (void)host;
    (void)plugin_id;
    (void)level;
    (void)message;
}

/** The one services table every library of the baseline receives. */
static const pb_host_t pbb_host = {
    .struct_size = sizeof(pb_host_t),
    .abi_major = PB_ABI_VERSION_MAJOR,
    .abi_minor = PB_ABI_VERSION_MINOR,
    .name = "plugboard-benchmark-baseline",
    .version = "0",
    .host_data = NULL,
    .log = pbb_log,
};

/** `pb_registrar_t.add_plugin`: copies the descriptor (it may be temporary) and its id. */
static pb_status_t pbb_add_plugin(const pb_registrar_t *registrar, const pb_plugin_t *plugin) {
    pbb_registration_t *registration = registrar->host_data;
    pbb_set_t *set = registration->set;
    if (plugin == NULL || plugin->id == NULL || plugin->struct_size < sizeof(pb_plugin_t)) {
        return PB_ERR_INVALID_ARGUMENT;
    }
    if (set->plugin_count == set->plugin_capacity) {
        size_t capacity = set->plugin_capacity ? set->plugin_capacity * 2 : 16;
        pbb_plugin_t *grown = realloc(set->plugins, capacity * sizeof *grown);
        if (grown == NULL) {
            registration->failed = true;
            return PB_ERR_INVALID_ARGUMENT;
        }
        set->plugins = grown;
        set->plugin_capacity = capacity;
    }
    pbb_plugin_t *copy = &set->plugins[set->plugin_count];
    memset(copy, 0, sizeof *copy);
    memcpy(&copy->descriptor, plugin, sizeof(pb_plugin_t));
    copy->id = strdup(plugin->id);
    if (copy->id == NULL) {
        registration->failed = true;
        return PB_ERR_INVALID_ARGUMENT;
    }
    copy->descriptor.id = copy->id;
    copy->descriptor.name = NULL;
    copy->descriptor.version = NULL;
    set->plugin_count += 1;
    return PB_OK;
}

/** Writes a formatted reason into `error`. */
static void pbb_fail(char *error, size_t error_size, const char *format, ...) {
    if (error == NULL || error_size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
}

/** qsort order of the file names: byte order, as the host scans. */
static int pbb_compare_names(const void *lhs, const void *rhs) {
    return strcmp(*(char *const *)lhs, *(char *const *)rhs);
}

/** Whether `name` ends in ".so" and has something before it. */
static bool pbb_is_candidate(const char *name) {
    size_t length = strlen(name);
    return length > 3 && strcmp(name + length - 3, ".so") == 0;
}

/** The sorted `*.so` names of `directory`, or NULL (then `*count` is untouched). */
static char **pbb_list(const char *directory, size_t *count, char *error, size_t error_size) {
    DIR *stream = opendir(directory);
    if (stream == NULL) {
        pbb_fail(error, error_size, "cannot open the directory %s", directory);
        return NULL;
    }
    size_t used = 0, capacity = 64;
    char **names = malloc(capacity * sizeof *names);
    bool out_of_memory = names == NULL;
    struct dirent *entry;
    while (!out_of_memory && (entry = readdir(stream)) != NULL) {
        if (!pbb_is_candidate(entry->d_name)) continue;
        if (used == capacity) {
            char **grown = realloc(names, capacity * 2 * sizeof *grown);
            if (grown == NULL) {
                out_of_memory = true;
                break;
            }
            names = grown;
            capacity *= 2;
        }
        names[used] = strdup(entry->d_name);
        if (names[used] == NULL) {
            out_of_memory = true;
            break;
        }
        used += 1;
    }
    closedir(stream);
    if (out_of_memory) {
        for (size_t i = 0; i < used; i++) free(names[i]);
        free(names);
        pbb_fail(error, error_size, "out of memory listing %s", directory);
        return NULL;
    }
    qsort(names, used, sizeof *names, pbb_compare_names);
    *count = used;
    return names;
}

/** The size of the blocks the host's ELF checks read a file in. */
#define PBB_CHECK_BLOCK 1024

/** Reads the block of `descriptor` holding `offset` into `block`: the bytes read from the block's start, -1 on an error. */
static ssize_t pbb_read_block(int descriptor, uint64_t offset, unsigned char block[PBB_CHECK_BLOCK]) {
    return pread(descriptor, block, PBB_CHECK_BLOCK, (off_t)(offset - offset % PBB_CHECK_BLOCK));
}

/** Whether the `head_size` bytes of `head`, read from a file's start, hold a 64-bit ELF header and its
 *  program headers, and one of those is the dynamic section's, copied to `dynamic`. */
static bool pbb_find_dynamic(const unsigned char *head, ssize_t head_size, Elf64_Phdr *dynamic) {
    Elf64_Ehdr header;
    if (head_size < (ssize_t)sizeof header) return false;
    memcpy(&header, head, sizeof header);
    if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64
        || header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phoff > (uint64_t)head_size
        || (uint64_t)header.e_phnum * sizeof(Elf64_Phdr) > (uint64_t)head_size - header.e_phoff) {
        return false;
    }
    for (unsigned index = 0; index < header.e_phnum; index++) {
        memcpy(dynamic, head + header.e_phoff + index * sizeof *dynamic, sizeof *dynamic);
        if (dynamic->p_type == PT_DYNAMIC) return true;
    }
    return false;
}

/** Reads the library at `path` as `pbb_set_open_directory_checked` says; false with a reason. */
static bool pbb_check_library(const char *path, char *error, size_t error_size) {
    int descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (descriptor < 0) {
        pbb_fail(error, error_size, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    struct stat status;
    unsigned char head[PBB_CHECK_BLOCK], block[PBB_CHECK_BLOCK];
    Elf64_Phdr dynamic = {0};
    ssize_t block_size = -1;
    if (fstat(descriptor, &status) != 0 || !S_ISREG(status.st_mode)) {
        pbb_fail(error, error_size, "%s: not a regular file", path);
        close(descriptor);
        return false;
    }
    ssize_t head_size = pbb_read_block(descriptor, 0, head);
    bool found = head_size >= 0 && pbb_find_dynamic(head, head_size, &dynamic);
    if (found) block_size = pbb_read_block(descriptor, dynamic.p_offset, block);
    int reason = errno;
    close(descriptor);
    if (head_size < 0 || (found && block_size < 0)) {
        pbb_fail(error, error_size, "%s: cannot read: %s", path, strerror(reason));
        return false;
    }
    if (!found || block_size <= (ssize_t)(dynamic.p_offset % PBB_CHECK_BLOCK)) {
        pbb_fail(error, error_size, "%s: not a 64-bit ELF file with a dynamic section", path);
        return false;
    }
    return true;
}

/** Opens one library and registers its plugins into `set`; false with a reason on failure. */
static bool pbb_open_library(pbb_set_t *set, const char *path, char *error, size_t error_size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        const char *reason = dlerror();
        pbb_fail(error, error_size, "dlopen failed: %s", reason ? reason : "(no reason)");
        return false;
    }
    pb_entry_fn entry_function;
    void *symbol = dlsym(handle, PB_ENTRY_SYMBOL);
    memcpy(&entry_function, &symbol, sizeof entry_function);
    const pb_entry_t *entry = entry_function ? entry_function() : NULL;
    if (entry == NULL || entry->abi_major != PB_ABI_VERSION_MAJOR || entry->register_plugins == NULL) {
        pbb_fail(error, error_size, "%s: no usable plugboard_entry", path);
        return false;
    }
    if (entry->init != NULL && !entry->init(&pbb_host)) {
        pbb_fail(error, error_size, "%s: init returned false", path);
        return false;
    }
    pbb_registration_t registration = {.set = set, .failed = false};
    pb_registrar_t registrar = {
        .struct_size = sizeof(pb_registrar_t),
        .host = &pbb_host,
        .host_data = &registration,
        .add_plugin = pbb_add_plugin,
    };
    if (!entry->register_plugins(&registrar) || registration.failed) {
        pbb_fail(error, error_size, "%s: register_plugins failed", path);
        return false;
    }
    set->library_count += 1;
    return true;
}

/** `pbb_set_open_directory`, each library read first as `pbb_check_library` reads it when `check`. */
static pbb_set_t *pbb_set_open(const char *directory, bool check, char *error, size_t error_size) {
    pbb_fail(error, error_size, "%s", "");
    pbb_set_t *set = calloc(1, sizeof *set);
    if (set == NULL) {
        pbb_fail(error, error_size, "out of memory");
        return NULL;
    }
    size_t count = 0;
    char **names = pbb_list(directory, &count, error, error_size);
    if (names == NULL) {
        free(set);
        return NULL;
    }
    bool ok = true;
    size_t directory_length = strlen(directory);
    for (size_t i = 0; i < count; i++) {
        size_t length = directory_length + 1 + strlen(names[i]) + 1;
        char *path = malloc(length);
        if (path == NULL) {
            pbb_fail(error, error_size, "out of memory");
            ok = false;
        } else {
            snprintf(path, length, "%s/%s", directory, names[i]);
            ok = ok && (!check || pbb_check_library(path, error, error_size))
                && pbb_open_library(set, path, error, error_size);
            free(path);
        }
        free(names[i]);
    }
    free(names);
    if (!ok) {
        pbb_set_close(set);
        return NULL;
    }
    return set;
}

pbb_set_t *pbb_set_open_directory(const char *directory, char *error, size_t error_size) {
    return pbb_set_open(directory, false, error, error_size);
}

pbb_set_t *pbb_set_open_directory_checked(const char *directory, char *error, size_t error_size) {
    return pbb_set_open(directory, true, error, error_size);
}

size_t pbb_set_library_count(const pbb_set_t *set) { return set->library_count; }

size_t pbb_set_plugin_count(const pbb_set_t *set) { return set->plugin_count; }

/** How a loop reads the clock; each exported loop passes a constant, so each is compiled on its own. */
enum pbb_timing { PBB_UNTIMED, PBB_PER_CALL, PBB_PER_EVENT };

/** Keeps a measured duration from being optimized away. */
static volatile uint64_t pbb_sink;

/**
 * The launch loop: `answer &= will_finish_launching(ctx, "{}", 2)` over every
 * plugin with the slot (a NULL slot counts as true), `iterations` rounds,
 * reading the clock as `timing` says.
 */
static inline __attribute__((always_inline)) uint64_t
pbb_launch_loop(const pbb_set_t *set, uint64_t iterations, enum pbb_timing timing, uint64_t *durations, bool *answer) {
    const pbb_plugin_t *plugins = set->plugins;
    const size_t count = set->plugin_count;
    bool all = true;
    uint64_t start = pbb_now_ns();
    for (uint64_t round = 0; round < iterations; round++) {
        bool result = true;
        uint64_t last = timing != PBB_UNTIMED ? pbb_now_ns() : 0;
        for (size_t i = 0; i < count; i++) {
            const pb_plugin_t *plugin = &plugins[i].descriptor;
            if (plugin->launch != NULL && plugin->launch->will_finish_launching != NULL) {
                result &= plugin->launch->will_finish_launching(plugin->ctx, "{}", 2);
                if (timing == PBB_PER_CALL) {
                    uint64_t now = pbb_now_ns();
                    durations[i] = now - last;
                    last = now;
                }
            }
        }
        if (timing == PBB_PER_EVENT) pbb_sink = pbb_now_ns() - last;
        all &= result;
    }
    uint64_t elapsed = pbb_now_ns() - start;
    if (answer != NULL) *answer = all;
    return elapsed;
}

/** The memory-warning loop: every non-NULL slot, `iterations` rounds, reading the clock as `timing` says. */
static inline __attribute__((always_inline)) uint64_t
pbb_memory_loop(const pbb_set_t *set, uint64_t iterations, enum pbb_timing timing, uint64_t *durations) {
    const pbb_plugin_t *plugins = set->plugins;
    const size_t count = set->plugin_count;
    uint64_t start = pbb_now_ns();
    for (uint64_t round = 0; round < iterations; round++) {
        uint64_t last = timing != PBB_UNTIMED ? pbb_now_ns() : 0;
        for (size_t i = 0; i < count; i++) {
            const pb_plugin_t *plugin = &plugins[i].descriptor;
            if (plugin->memory != NULL && plugin->memory->did_receive_memory_warning != NULL) {
                plugin->memory->did_receive_memory_warning(plugin->ctx);
                if (timing == PBB_PER_CALL) {
                    uint64_t now = pbb_now_ns();
                    durations[i] = now - last;
                    last = now;
                }
            }
        }
        if (timing == PBB_PER_EVENT) pbb_sink = pbb_now_ns() - last;
    }
    return pbb_now_ns() - start;
}

/** Copies the non-NULL slots into one array each; false when out of memory. */
static bool pbb_copy_slots(pbb_set_t *set) {
    if (set->launch_slots != NULL || set->plugin_count == 0) return true;
    set->launch_slots = calloc(set->plugin_count, sizeof(pbb_slot_t));
    set->memory_slots = calloc(set->plugin_count, sizeof(pbb_slot_t));
    if (set->launch_slots == NULL || set->memory_slots == NULL) {
        free(set->launch_slots);
        free(set->memory_slots);
        set->launch_slots = set->memory_slots = NULL;
        return false;
    }
    for (size_t i = 0; i < set->plugin_count; i++) {
        const pb_plugin_t *plugin = &set->plugins[i].descriptor;
        if (plugin->launch != NULL && plugin->launch->will_finish_launching != NULL) {
            pbb_slot_t *slot = &set->launch_slots[set->launch_slot_count++];
            memcpy(&slot->function, &plugin->launch->will_finish_launching, sizeof slot->function);
            slot->ctx = plugin->ctx;
        }
        if (plugin->memory != NULL && plugin->memory->did_receive_memory_warning != NULL) {
            pbb_slot_t *slot = &set->memory_slots[set->memory_slot_count++];
            memcpy(&slot->function, &plugin->memory->did_receive_memory_warning, sizeof slot->function);
            slot->ctx = plugin->ctx;
        }
    }
    return true;
}

uint64_t pbb_set_will_finish_launching_copied(pbb_set_t *set, uint64_t iterations, bool *answer) {
    if (!pbb_copy_slots(set)) return 0;
    const pbb_slot_t *slots = set->launch_slots;
    const size_t count = set->launch_slot_count;
    bool all = true;
    uint64_t start = pbb_now_ns();
    for (uint64_t round = 0; round < iterations; round++) {
        bool result = true;
        for (size_t i = 0; i < count; i++) {
            bool (*function)(void *, const char *, size_t);
            memcpy(&function, &slots[i].function, sizeof function);
            result &= function(slots[i].ctx, "{}", 2);
        }
        all &= result;
    }
    uint64_t elapsed = pbb_now_ns() - start;
    if (answer != NULL) *answer = all;
    return elapsed;
}

uint64_t pbb_set_memory_warning_copied(pbb_set_t *set, uint64_t iterations) {
    if (!pbb_copy_slots(set)) return 0;
    const pbb_slot_t *slots = set->memory_slots;
    const size_t count = set->memory_slot_count;
    uint64_t start = pbb_now_ns();
    for (uint64_t round = 0; round < iterations; round++) {
        for (size_t i = 0; i < count; i++) {
            void (*function)(void *);
            memcpy(&function, &slots[i].function, sizeof function);
            function(slots[i].ctx);
        }
    }
    return pbb_now_ns() - start;
}

uint64_t pbb_set_will_finish_launching(const pbb_set_t *set, uint64_t iterations, bool *answer) {
    return pbb_launch_loop(set, iterations, PBB_UNTIMED, NULL, answer);
}

uint64_t pbb_set_will_finish_launching_timed(const pbb_set_t *set, uint64_t iterations, uint64_t *durations,
                                             bool *answer) {
    return pbb_launch_loop(set, iterations, PBB_PER_CALL, durations, answer);
}

uint64_t pbb_set_will_finish_launching_event_timed(const pbb_set_t *set, uint64_t iterations, bool *answer) {
    return pbb_launch_loop(set, iterations, PBB_PER_EVENT, NULL, answer);
}

uint64_t pbb_set_memory_warning(const pbb_set_t *set, uint64_t iterations) {
    return pbb_memory_loop(set, iterations, PBB_UNTIMED, NULL);
}

uint64_t pbb_set_memory_warning_timed(const pbb_set_t *set, uint64_t iterations, uint64_t *durations) {
    return pbb_memory_loop(set, iterations, PBB_PER_CALL, durations);
}

uint64_t pbb_set_memory_warning_event_timed(const pbb_set_t *set, uint64_t iterations) {
    return pbb_memory_loop(set, iterations, PBB_PER_EVENT, NULL);
}

void pbb_set_close(pbb_set_t *set) {
    if (set == NULL) return;
    for (size_t i = 0; i < set->plugin_count; i++) free(set->plugins[i].id);
    free(set->plugins);
    free(set->launch_slots);
    free(set->memory_slots);
    free(set);
}

void (*pbb_set_function(const pbb_set_t *set, const char *name))(void) {
    for (size_t i = 0; i < set->plugin_count; i++) {
        const pb_plugin_t *plugin = &set->plugins[i].descriptor;
        for (uint32_t j = 0; plugin->functions != NULL && j < plugin->function_count; j++) {
            const pb_function_t *function = &plugin->functions[j];
            if (function->name != NULL && strcmp(function->name, name) == 0) return function->function;
        }
    }
    return NULL;
}
