/* What a plugin worker needs from Linux that Swift cannot call directly; see worker_support.h. */
#define _GNU_SOURCE
#include "worker_support.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>

/* /proc/self/pagemap's bits of an entry (Documentation/admin-guide/mm/pagemap.rst). */
#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_SWAPPED (1ULL << 62)
#define PAGEMAP_FILE_OR_SHARED (1ULL << 61)

struct release_walk {
    int pagemap;
    uintptr_t page;
};

/* Whether the page `entry` describes is this process's own copy: written since it was mapped from its
 * file (present and anonymous, or swapped out). */
static int is_written(uint64_t entry) {
    return (entry & PAGEMAP_SWAPPED) || ((entry & PAGEMAP_PRESENT) && !(entry & PAGEMAP_FILE_OR_SHARED));
}

/* A run that cannot be released (a hole in it, a locked page) stays as it is. */
static void release_run(uintptr_t start, uintptr_t end) {
    if (end > start) (void)madvise((void *)start, end - start, MADV_DONTNEED);
}

/* Releases the pages of [start, end) in runs, leaving out each page this process wrote: a private
 * copy that MADV_DONTNEED would take back to the file's bytes (the loader's text relocations, or a
 * plugin that rewrote code in memory, as a function hook does). Nothing is released when the page
 * map cannot be read. A page first written between its entry's read and the madvise would lose
 * the write: a plugin thread rewriting code, or a library with text relocations that a plugin thread
 * opens, at that very moment. Only that plugin's own worker is concerned. */
static void release_unwritten(struct release_walk *walk, uintptr_t start, uintptr_t end) {
    uint64_t entries[512];
    uintptr_t run = start;
    for (uintptr_t address = start; address < end;) {
        size_t count = (end - address) / walk->page;
        if (count > sizeof entries / sizeof entries[0]) count = sizeof entries / sizeof entries[0];
        off_t offset = (off_t)(address / walk->page * sizeof(uint64_t));
        ssize_t got = pread(walk->pagemap, entries, count * sizeof(uint64_t), offset);
        if (got < (ssize_t)sizeof(uint64_t)) {
            release_run(run, address);
            return;
        }
        for (size_t i = 0; i < (size_t)got / sizeof(uint64_t); i++, address += walk->page) {
            if (!is_written(entries[i])) continue;
            release_run(run, address);
            run = address + walk->page;
        }
    }
    release_run(run, end);
}

static int release_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct release_walk *walk = data;
    const char *name = info->dlpi_name;
    /* The program (an empty name) and libraries by path; not the vDSO, a page of the kernel's. */
    if (name == NULL || (name[0] != '\0' && name[0] != '/')) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        /* Segments the object may write (data, and the relocated tables of PT_GNU_RELRO within) are not touched. */
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W)) continue;
        /* Only whole pages inside the segment: a page shared with a writable neighbour stays. */
        uintptr_t start = (info->dlpi_addr + header->p_vaddr + walk->page - 1) & ~(walk->page - 1);
        uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz) & ~(walk->page - 1);
        if (end > start) release_unwritten(walk, start, end);
    }
    return 0;
}

void pbw_release_unwritten_pages(void) {
    struct release_walk walk = { open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), (uintptr_t)sysconf(_SC_PAGESIZE) };
    if (walk.pagemap < 0) return;
    dl_iterate_phdr(release_object, &walk);
    close(walk.pagemap);
}
