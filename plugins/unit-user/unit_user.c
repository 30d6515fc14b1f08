/*
 * unit-user: an example plugin that calls another plugin's function by name
 * (ABI 1.2, pb_host_t.invoke): at launch it asks plugins/unit-converter
 *
 *     com.example.units.convert("ft", "m", 3)
 *
 * and logs the answer, "3 ft = 0.9144 m". Run the two together:
 *
 *     plugboard run --plugin-dir DIR      (DIR holds unit-converter.so and unit-user.so)
 *
 * The call is the same wherever each plugin runs: both in the host's process
 * (--isolation none), each in a worker of its own (the default), or one here
 * and one there; the host carries the arguments and the result across.
 *
 * What it shows:
 *   - arguments as pb_value_t, one per declared argument, with the kind of value
 *     each holds (PB_VALUE_STRING, PB_VALUE_DOUBLE, …); strings are borrowed for
 *     the call only;
 *   - the result written to a pb_value_t (a double here; a string or bytes result
 *     would be the caller's to free with host->release_value);
 *   - a failure as a status and a sentence in the caller's buffer: the converter
 *     is missing, crashed in its worker, or was called with the wrong arguments.
 *     The plugin logs it and still launches.
 *
 * Build: cc -std=c11 -shared -fPIC -fvisibility=hidden -I include unit_user.c -o unit-user.so
 */
#include <plugboard.h>
#include <stdio.h>

#define PLUGIN_ID "com.example.unit-user"

static const pb_host_t *host;

static bool init(const pb_host_t *given) {
    host = given;
    /* invoke is new in 1.2: an older host's table is shorter. */
    if (host->struct_size < offsetof(pb_host_t, release_value) + sizeof host->release_value) {
        host->log(host, NULL, PB_LOG_ERROR, "this host has no invoke (ABI 1.2 is needed)");
        return false;
    }
    return true;
}

/* did_finish_launching: converts 3 ft to metres through com.example.units.convert. */
static bool did_finish_launching(void *ctx, const char *options_json, size_t options_len) {
    (void)ctx;
    (void)options_json;
    (void)options_len;
    pb_value_t arguments[3] = {{0}, {0}, {0}};
    arguments[0].kind = PB_VALUE_STRING;
    arguments[0].string = "ft";
    arguments[1].kind = PB_VALUE_STRING;
    arguments[1].string = "m";
    arguments[2].kind = PB_VALUE_DOUBLE;
    arguments[2].double_value = 3;
    pb_value_t result = {0};
    char error[512];
    pb_status_t status = host->invoke(host, "com.example.units.convert", arguments, 3, &result, error, sizeof error);
    char line[640];
    if (status == PB_OK) {
        snprintf(line, sizeof line, "3 ft = %g m (com.example.units.convert)", result.double_value);
        host->log(host, PLUGIN_ID, PB_LOG_INFO, line);
    } else {
        snprintf(line, sizeof line, "cannot convert (status %d): %s", (int)status, error);
        host->log(host, PLUGIN_ID, PB_LOG_WARNING, line);
    }
    host->release_value(host, &result); /* nothing to free for a double; harmless, and right for any kind */
    return true;
}

static const pb_launch_t launch = {
    .struct_size = sizeof(pb_launch_t),
    .did_finish_launching = did_finish_launching,
};

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin = {0};
    plugin.struct_size = sizeof plugin;
    plugin.id = PLUGIN_ID;
    plugin.name = "Unit user";
    plugin.version = "1.0.0";
    plugin.launch = &launch;
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static const pb_entry_t entry = {
    .struct_size = sizeof(pb_entry_t),
    .abi_major = PB_ABI_VERSION_MAJOR,
    .abi_minor = PB_ABI_VERSION_MINOR,
    .init = init,
    .register_plugins = register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
