/*
 * A test plugin that drives every function of the files host service at
 * did-finish-launching and logs one line per step: "<step> <status> <detail>".
 * It also tries paths that must not leave the container, and arguments past
 * the service's limits (sizes no buffer has, control characters, paths too
 * deep or too long). Its `init` writes Documents/init.txt, and its function
 * `note` writes through the service from a `plugboard call`, which sends no
 * lifecycle event.
 */
#include <plugboard.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pb_host_t *host;

static void report(const char *step, pb_status_t status, const char *detail) {
    char line[700];
    char reason[300] = "";
    if (status != PB_OK) host->files->last_error(host, reason, sizeof reason);
    snprintf(line, sizeof line, "%s %d %s%s%s", step, (int)status, detail, status != PB_OK ? " | " : "", reason);
    host->log(host, NULL, PB_LOG_INFO, line);
}

/* "<prefix>" followed by `count` copies of `segment`, then "<leaf>"; malloc'd. */
static char *repeated_path(const char *prefix, const char *segment, size_t count, const char *leaf) {
    size_t prefix_length = strlen(prefix), segment_length = strlen(segment), leaf_length = strlen(leaf);
    char *path = malloc(prefix_length + segment_length * count + leaf_length + 1);
    if (!path) return NULL;
    memcpy(path, prefix, prefix_length);
    char *end = path + prefix_length;
    for (size_t i = 0; i < count; i++, end += segment_length) memcpy(end, segment, segment_length);
    memcpy(end, leaf, leaf_length + 1);
    return path;
}

static void probe_limits(const pb_files_t *f) {
    /* More than one worker frame carries: refused in a worker, which keeps its channel. */
    size_t frame_size = (size_t)65 << 20;
    char *frame = calloc(frame_size, 1);
    report("size-frame", frame ? f->write(host, "tmp/frame.bin", frame, frame_size, 0) : PB_ERR_IO, "");
    free(frame);
    f->remove(host, "tmp/frame.bin");
    /* A path of a megabyte with 63.5 MiB of data: each within its own limit, but more than one
       frame carries together: refused, in a worker before it is sent, which keeps its channel. */
    char *huge_path = repeated_path("tmp/", "x", (size_t)1 << 20, "");
    size_t near_size = ((size_t)127 << 19);
    char *near = calloc(near_size, 1);
    report("path-frame", huge_path && near ? f->write(host, huge_path, near, near_size, 0) : PB_ERR_IO, "");
    free(near);
    free(huge_path);
    report("size-max", f->write(host, "tmp/big.bin", "x", SIZE_MAX, 0), "");
    report("size-huge", f->write(host, "tmp/big.bin", "x", ((size_t)1 << 30) + 1, 0), "");
    report("control-write", f->write(host, "tmp/a\x1b]0;pwned\x07.txt", "x", 1, 0), "");
    report("control-rename", f->rename(host, "Documents/notes/a.txt", "b\n.txt", 0), "");
    report("control-ext", f->change_extension(host, "Documents/notes/a.txt", "t\x7f", 0, NULL), "");
    /* Bytes that are not UTF-8: repaired, two of them would name the same file. */
    report("not-utf8-write", f->write(host, "tmp/\xff.txt", "first", 5, 0), "");
    report("not-utf8-write-other", f->write(host, "tmp/\xfe.txt", "second", 6, PB_FILES_OVERWRITE), "");
    report("not-utf8-rename", f->rename(host, "Documents/notes/a.txt", "b\xc3.txt", 0), "");
    bool repaired = true;
    pb_status_t looked = f->exists(host, "tmp/\xef\xbf\xbd.txt", &repaired);
    report("not-utf8-left-nothing", looked, repaired ? "yes" : "no");

    char *too_deep = repeated_path("tmp/", "a/", 50000, "x");
    report("too-deep", too_deep ? f->write(host, too_deep, "x", 1, PB_FILES_CREATE_FOLDERS) : PB_ERR_IO, "");
    free(too_deep);
    bool exists = true;
    pb_status_t status = f->exists(host, "tmp/a", &exists);
    report("too-deep-left-nothing", status, exists ? "yes" : "no");
    char *deepest = repeated_path("tmp/", "d/", 127, "x");
    report("deepest", deepest ? f->write(host, deepest, "x", 1, PB_FILES_CREATE_FOLDERS) : PB_ERR_IO, "");
    free(deepest);

    char segment[242];
    memset(segment, 'n', 240);
    segment[240] = '/';
    segment[241] = 0;
    char *too_long = repeated_path("Documents/", segment, 17, "x");
    report("too-long", too_long ? f->write(host, too_long, "x", 1, PB_FILES_CREATE_FOLDERS) : PB_ERR_IO, "");
    free(too_long);

    /* A capacity no buffer has: the length comes back, nothing is written. */
    char small[8] = "unset";
    size_t length = f->last_error(host, small, SIZE_MAX);
    char detail[100];
    snprintf(detail, sizeof detail, "%s %s", length > 0 ? "length" : "empty", small);
    report("last-error-size-max", PB_OK, detail);
}

static bool probe(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
    if (!host->files) { host->log(host, NULL, PB_LOG_INFO, "no-files-service"); return true; }
    const pb_files_t *f = host->files;
    pb_buffer_t buffer = {0};
    report("write", f->write(host, "Documents/notes/a.txt", "hello", 5, PB_FILES_CREATE_FOLDERS), "");
    report("write-again", f->write(host, "Documents/notes/a.txt", "other", 5, 0), "");
    pb_status_t status = f->read(host, "Documents/notes/a.txt", &buffer);
    report("read", status, status == PB_OK ? (const char *)buffer.data : "");
    f->free_buffer(host, &buffer);
    report("overwrite", f->write(host, "Documents/notes/a.txt", "hello!", 6, PB_FILES_OVERWRITE), "");
    report("copy", f->copy(host, "Documents/notes/a.txt", "Library/b.txt", 0), "");
    report("rename", f->rename(host, "Library/b.txt", "c.txt", 0), "");
    report("move", f->move(host, "Library/c.txt", "tmp/d.txt", 0), "");
    status = f->change_extension(host, "tmp/d.txt", "md", 0, &buffer);
    report("ext", status, status == PB_OK ? (const char *)buffer.data : "");
    f->free_buffer(host, &buffer);
    bool exists = false;
    status = f->exists(host, "tmp/d.md", &exists);
    report("exists", status, exists ? "yes" : "no");
    pb_file_attributes_t attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.struct_size = sizeof attributes;
    status = f->attributes(host, "tmp/d.md", &attributes);
    char detail[100];
    snprintf(detail, sizeof detail, "size=%llu kind=%d", (unsigned long long)attributes.size, (int)attributes.kind);
    report("attributes", status, detail);
    status = f->list(host, "Documents/notes", &buffer);
    report("list", status, status == PB_OK ? (const char *)buffer.data : "");
    f->free_buffer(host, &buffer);
    report("remove", f->remove(host, "tmp/d.md"), "");
    report("read-missing", f->read(host, "tmp/d.md", &buffer), "");
    report("escape-dotdot", f->write(host, "Documents/../../outside.txt", "x", 1, 0), "");
    report("escape-absolute", f->write(host, "/tmp/outside.txt", "x", 1, 0), "");
    report("escape-directory", f->write(host, "Desktop/x.txt", "x", 1, 0), "");
    report("escape-link", f->write(host, "Documents/link/x.txt", "x", 1, 0), "");
    probe_limits(f);
    return true;
}

/* A function that writes `text` to Documents/note.txt (no folder made) and returns the status:
   `plugboard call` sends no launch, so the container's directories must be there before. */
static int32_t note(const char *text) {
    return host->files ? host->files->write(host, "Documents/note.txt", text, strlen(text), PB_FILES_OVERWRITE)
                       : PB_ERR_UNAVAILABLE;
}

static const pb_function_t functions[] = {
    {sizeof(pb_function_t), "note", "int32 (string)", "Writes its text to Documents/note.txt.", (void (*)(void))note, NULL},
};

static const pb_launch_t launch = {sizeof(pb_launch_t), NULL, probe};
/* Writes Documents/init.txt while loading: the container's directories must be there before any
   launch (the host makes them before it loads plugins). */
static bool init(const pb_host_t *h) {
    host = h;
    if (host->files) host->files->write(host, "Documents/init.txt", "init", 4, PB_FILES_OVERWRITE);
    return true;
}
static bool add(const pb_registrar_t *r) {
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.id = "com.test.files-probe";
    plugin.launch = &launch;
    plugin.functions = functions;
    plugin.function_count = 1;
    return r->add_plugin(r, &plugin) == PB_OK;
}
static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL, add};
PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
