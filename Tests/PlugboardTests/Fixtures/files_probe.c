/*
 * A test plugin that drives every function of the files host service at
 * did-finish-launching and logs one line per step: "<step> <status> <detail>".
 * With FIX_ESCAPE it also tries paths that must not leave the container.
 */
#include <plugboard.h>
#include <stdio.h>
#include <string.h>

static const pb_host_t *host;

static void report(const char *step, pb_status_t status, const char *detail) {
    char line[700];
    char reason[300] = "";
    if (status != PB_OK) host->files->last_error(host, reason, sizeof reason);
    snprintf(line, sizeof line, "%s %d %s%s%s", step, (int)status, detail, status != PB_OK ? " | " : "", reason);
    host->log(host, NULL, PB_LOG_INFO, line);
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
    return true;
}

static const pb_launch_t launch = {sizeof(pb_launch_t), NULL, probe};
static bool init(const pb_host_t *h) { host = h; return true; }
static bool add(const pb_registrar_t *r) {
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.id = "com.test.files-probe";
    plugin.launch = &launch;
    return r->add_plugin(r, &plugin) == PB_OK;
}
static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL, add};
PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
