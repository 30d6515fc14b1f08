/*
 * A test plugin that notes each of its stages, "<stage> ORDER_NAME" on a line of its own,
 * in the file ORDER_LOG: its constructor, plugboard_entry, init, register_plugins, and the
 * beginning and end of its deinit, which takes ORDER_DEINIT_MS milliseconds (0 by default).
 * Built several times with different names, it shows the order a host runs the stages of many
 * libraries in.
 */
#define _POSIX_C_SOURCE 200809L
#include <plugboard.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef ORDER_DEINIT_MS
#define ORDER_DEINIT_MS 0
#endif

/* Appends "<stage> ORDER_NAME\n" to ORDER_LOG. */
static void note(const char *stage) {
    char line[128];
    size_t length = strlen(stage);
    memcpy(line, stage, length);
    line[length++] = ' ';
    memcpy(line + length, ORDER_NAME, strlen(ORDER_NAME));
    length += strlen(ORDER_NAME);
    line[length++] = '\n';
    int descriptor = open(ORDER_LOG, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (descriptor < 0) return;
    if (write(descriptor, line, length) < 0) { /* the test sees the line missing */ }
    close(descriptor);
}

__attribute__((constructor)) static void constructor(void) { note("constructor"); }

static bool init(const pb_host_t *host) {
    (void)host;
    note("init");
    return true;
}

static bool register_plugins(const pb_registrar_t *registrar) {
    note("register");
    pb_plugin_t plugin = {.struct_size = sizeof(pb_plugin_t), .id = "org.order." ORDER_NAME};
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static void deinit(void) {
    note("deinit-begin");
    struct timespec pause = {ORDER_DEINIT_MS / 1000, (ORDER_DEINIT_MS % 1000) * 1000000L};
    nanosleep(&pause, NULL);
    note("deinit-end");
}

static const pb_entry_t entry = {
    .struct_size = sizeof(pb_entry_t),
    .abi_major = PB_ABI_VERSION_MAJOR,
    .abi_minor = PB_ABI_VERSION_MINOR,
    .init = init,
    .register_plugins = register_plugins,
    .deinit = deinit,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    note("entry");
    return &entry;
}
