extension LanguageTemplate {
    /// A C plugin: `<name>.c` and a Makefile that builds `build/<name>.so` with the flags of plugins/README.md.
    static func c(_ project: Scaffold) -> LanguageTemplate {
        let name = project.name.rawValue
        return LanguageTemplate(
            files: [
                ProjectFile(path: "Makefile", text: makefile(name: name, source: name + ".c", language: "C", compiler: "CC",
                                                             flags: "CFLAGS", defaultFlags: "-std=c11 -Wall -Wextra -pedantic -O2",
                                                             headers: "plugboard.h", sdk: project.sdk)),
                ProjectFile(path: name + ".c", text: #"""
                    /*
                     * \#(name): a Plugboard plugin in C, made by `plugboard new`.
                     *
                     * It opens \#(project.name.scheme):// links and logs at launch and at termination.
                     * The headers (PLUGBOARD_INCLUDE in the Makefile) document every type, its
                     * ownership and its thread rule: start with plugboard.h and plugboard/entry.h.
                     */
                    #include <plugboard.h>

                    #include <stdio.h>  /* snprintf */
                    #include <string.h> /* memcmp */

                    /* The plugin's id: reverse-DNS, unique in the process. */
                    #define PLUGIN_ID "\#(project.id)"

                    /* The links this plugin opens. */
                    #define SCHEME "\#(project.name.scheme)://"
                    #define SCHEME_LEN (sizeof SCHEME - 1)

                    /* The host table from init, valid until deinit returns. Callbacks run on the
                     * host's one dispatch thread, one at a time, so a plain static is enough. */
                    static const pb_host_t *g_host = NULL;

                    /* Logs `message` at info level, attributed to this plugin. */
                    static void log_info(const char *message)
                    {
                        if (g_host != NULL) {
                            g_host->log(g_host, PLUGIN_ID, PB_LOG_INFO, message);
                        }
                    }

                    /* Launch is a vote: false would veto it. */
                    static bool did_finish_launching(void *ctx, const char *options_json, size_t options_len)
                    {
                        (void)ctx;
                        (void)options_json;
                        (void)options_len;
                        log_info("launched");
                        return true;
                    }

                    /* Asked for each URL until a plugin returns true. `url` belongs to the host and
                     * is valid only during the call; `url_len` is its exact length. */
                    static bool open_url(void *ctx, const char *url, size_t url_len, const char *options_json,
                                         size_t options_len)
                    {
                        char message[256];
                        size_t rest;

                        (void)ctx;
                        (void)options_json;
                        (void)options_len;
                        if (url_len < SCHEME_LEN || memcmp(url, SCHEME, SCHEME_LEN) != 0) {
                            return false; /* not ours: the next plugin is asked */
                        }
                        rest = url_len - SCHEME_LEN;
                        snprintf(message, sizeof message, "open %.*s", (int)(rest > 200 ? 200 : rest), url + SCHEME_LEN);
                        log_info(message);
                        return true;
                    }

                    static void will_terminate(void *ctx)
                    {
                        (void)ctx;
                        log_info("terminating");
                    }

                    /* The vtables are static const, sized; a slot left out is NULL (see each header). */
                    static const pb_launch_t launch_vtable = {
                        .struct_size = sizeof(pb_launch_t),
                        .did_finish_launching = did_finish_launching,
                    };
                    static const pb_open_url_t open_url_vtable = {
                        .struct_size = sizeof(pb_open_url_t),
                        .open_url = open_url,
                    };
                    static const pb_termination_t termination_vtable = {
                        .struct_size = sizeof(pb_termination_t),
                        .will_terminate = will_terminate,
                    };

                    static bool init(const pb_host_t *host)
                    {
                        g_host = host;
                        return true;
                    }

                    /* The library is never unloaded: reset the statics, a later init may follow. */
                    static void deinit(void)
                    {
                        g_host = NULL;
                    }

                    /* The descriptor is copied by the host; the vtables it points to are kept. */
                    static bool register_plugins(const pb_registrar_t *registrar)
                    {
                        pb_plugin_t plugin = {
                            .struct_size = sizeof(pb_plugin_t),
                            .id = PLUGIN_ID,
                            .name = "\#(name)",
                            .version = "0.1.0",
                            .launch = &launch_vtable,
                            .open_url = &open_url_vtable,
                            .termination = &termination_vtable,
                        };
                        return registrar->add_plugin(registrar, &plugin) == PB_OK;
                    }

                    static const pb_entry_t entry = {
                        .struct_size = sizeof(pb_entry_t),
                        .abi_major = PB_ABI_VERSION_MAJOR,
                        .abi_minor = PB_ABI_VERSION_MINOR,
                        .init = init,
                        .deinit = deinit,
                        .register_plugins = register_plugins,
                    };

                    /* The one exported symbol: it only returns the record. */
                    PB_EXPORT const pb_entry_t *plugboard_entry(void)
                    {
                        return &entry;
                    }

                    """#),
            ],
            build: "make", libraryDirectory: "build", libraryFile: name + ".so",
            sdkSetting: "the `PLUGBOARD_INCLUDE` line of the Makefile", ignored: ["/build/"])
    }
}
