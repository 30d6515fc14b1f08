/*
 * The smallest plugin library: no libc, so it cross-compiles for any target with
 * `clang --target=<triple> -ffreestanding -nostdlib -fuse-ld=lld`. The tests build it
 * for another machine than the host's, to check the loader's ELF preflight on a
 * library a real compiler made for that machine.
 */
#include <plugboard.h>

static bool register_plugins(const pb_registrar_t *registrar) {
    (void)registrar;
    return true;
}

static const pb_entry_t entry = {
    sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, NULL, NULL, register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
