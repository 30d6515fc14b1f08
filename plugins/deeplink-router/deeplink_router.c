/*
 * deeplink-router: the smallest useful Plugboard plugin, written to be read.
 *
 * It handles URLs of the form `myapp://<route>/<argument>` and logs which
 * route it took ("myapp://item/42" -> "route item 42"). Any other URL is
 * left for other plugins. It also takes part in launch and termination.
 *
 * What every plugin library is made of, in the order the host uses it:
 *
 *   1. one exported function, `plugboard_entry`, returning a static record
 *      (`pb_entry_t`) that names the ABI version and three functions;
 *   2. `init(host)`: keep the host table (we use it to log);
 *   3. `register_plugins(registrar)`: describe each plugin (`pb_plugin_t`)
 *      and hand it to `registrar->add_plugin`;
 *   4. the callbacks in the plugin's vtables, one vtable per concern;
 *   5. `deinit()`: release what `init` acquired.
 *
 * Build it (from the repository root):
 *
 *   cc -std=c11 -Wall -Wextra -pedantic -O2 -shared -fPIC -fvisibility=hidden \
 *      -I include -o deeplink-router.so plugins/deeplink-router/deeplink_router.c
 *
 * `-fvisibility=hidden` keeps every function of this file private to the
 * library; only `plugboard_entry` (marked PB_EXPORT by the header) is exported.
 * Check with `nm -D --defined-only deeplink-router.so`.
 */
#include <plugboard.h>

#include <limits.h> /* INT_MAX */
#include <stdarg.h> /* va_list, for the printf-style log helper */
#include <stdio.h>  /* vsnprintf */
#include <string.h> /* memchr, memcmp, strlen */

/* The plugin's id: reverse-DNS, unique in the process. The host attributes our
 * log messages to it and uses it (with `priority`) to order dispatch. */
#define PLUGIN_ID "com.example.deeplink-router"

/* The URL scheme we handle. */
#define SCHEME "myapp://"
#define SCHEME_LEN (sizeof SCHEME - 1)

/* ------------------------------------------------------------------------ */
/* Host services                                                            */
/* ------------------------------------------------------------------------ */

/* The host table handed to `init`. It stays valid until `deinit` returns, so
 * keeping the pointer is allowed (see plugboard/host.h). NULL before `init`
 * and after `deinit`. Every callback below runs on the host's one dispatch
 * thread, one at a time, so a plain static variable is enough here. */
static const pb_host_t *g_host = NULL;

/* With gcc and clang, check the format string of log_msg like printf's. */
#if defined(__GNUC__)
#  define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#  define PRINTF_LIKE(f, a)
#endif
static void log_msg(pb_log_level_t level, const char *format, ...) PRINTF_LIKE(2, 3);

/* printf-style logging through `host->log`. The host copies the message, so a
 * stack buffer is fine; longer messages are truncated. `host->log` exists in
 * every 1.0 host, so there is nothing to check beyond "are we initialized". */
static void log_msg(pb_log_level_t level, const char *format, ...)
{
    char message[512];
    va_list args;

    if (g_host == NULL) {
        return;
    }
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    g_host->log(g_host, PLUGIN_ID, level, message);
}

/* "%.*s" wants an int length; the host passes size_t. */
static int as_int(size_t length)
{
    return length > (size_t)INT_MAX ? INT_MAX : (int)length;
}

/* ------------------------------------------------------------------------ */
/* The open-url concern                                                     */
/* ------------------------------------------------------------------------ */

/* Returns the length of the prefix of `text` (of `length` bytes) that stops at
 * the first of the characters in `stops`, or `length` if there is none. */
static size_t span_until(const char *text, size_t length, const char *stops)
{
    size_t i;
    for (i = 0; i < length; i++) {
        if (memchr(stops, text[i], strlen(stops)) != NULL) {
            break;
        }
    }
    return i;
}

/*
 * Asked for every URL the application is told to open, in priority order,
 * until one plugin returns true. We answer true only for our own scheme, so a
 * plugin with a lower priority still gets the chance to handle everything else.
 *
 * `url` is NUL-terminated, but `url_len` is its exact length: use the length.
 * Both strings belong to the host and are valid only during this call; copy
 * anything you want to keep. The host does not validate the URL.
 */
static bool router_open_url(void *ctx, const char *url, size_t url_len, const char *options_json,
                            size_t options_len)
{
    const char *path;
    size_t path_len, route_len;

    (void)ctx; /* this plugin keeps no state: its ctx is NULL */
    (void)options_json;
    (void)options_len;

    if (url_len < SCHEME_LEN || memcmp(url, SCHEME, SCHEME_LEN) != 0) {
        return false; /* not ours: let the next plugin try */
    }

    /* "myapp://item/42?ref=mail" -> path "item/42" (query and fragment dropped),
     * route "item", argument "42". This is string slicing, not a URL parser. */
    path = url + SCHEME_LEN;
    path_len = span_until(path, url_len - SCHEME_LEN, "?#");
    route_len = span_until(path, path_len, "/");

    if (route_len == 0) {
        log_msg(PB_LOG_INFO, "route home");
    } else if (route_len + 1 >= path_len) {
        log_msg(PB_LOG_INFO, "route %.*s", as_int(route_len), path);
    } else {
        log_msg(PB_LOG_INFO, "route %.*s %.*s", as_int(route_len), path,
                as_int(path_len - route_len - 1), path + route_len + 1);
    }
    return true; /* handled: plugins after us are not asked */
}

/* Every vtable is `static const`: the host keeps the pointer until `deinit`
 * returns, and a constant table can never be changed by mistake.
 * `.struct_size = sizeof(...)` tells the host which version of the struct we
 * were compiled against; always fill it like this. */
static const pb_open_url_t router_open_url_vtable = {
    .struct_size = sizeof(pb_open_url_t),
    .open_url = router_open_url,
};

/* ------------------------------------------------------------------------ */
/* The launch and termination concerns                                      */
/* ------------------------------------------------------------------------ */

/* Launch is a vote: every plugin with a launch vtable is asked, and one false
 * vetoes the launch. We have nothing to check, so we say yes. */
static bool router_did_finish_launching(void *ctx, const char *options_json, size_t options_len)
{
    (void)ctx;
    (void)options_json;
    (void)options_len;
    log_msg(PB_LOG_INFO, "ready to route %s links", SCHEME);
    return true;
}

/* A NULL slot is allowed in every vtable. For launch, NULL means "true": we
 * leave `will_finish_launching` out and only implement `did_finish_launching`. */
static const pb_launch_t router_launch_vtable = {
    .struct_size = sizeof(pb_launch_t),
    .will_finish_launching = NULL,
    .did_finish_launching = router_did_finish_launching,
};

static void router_will_terminate(void *ctx)
{
    (void)ctx;
    log_msg(PB_LOG_INFO, "shutting down; no more %s links", SCHEME);
}

static const pb_termination_t router_termination_vtable = {
    .struct_size = sizeof(pb_termination_t),
    .will_terminate = router_will_terminate,
};

/* ------------------------------------------------------------------------ */
/* The library: init, register_plugins, deinit                              */
/* ------------------------------------------------------------------------ */

/* Called once per process, before anything else but `plugboard_entry`.
 * Returning false refuses the load (log an error first to say why). */
static bool router_init(const pb_host_t *host)
{
    g_host = host;
    return true;
}

/* Called once, when the last host using the library shuts down. No callback
 * runs after it starts. The library itself stays loaded (the host never
 * unloads it) and a later `init` may follow, so reset the statics. */
static void router_deinit(void)
{
    g_host = NULL;
}

/* Called once, right after `init`. The descriptor may live on the stack: the
 * host copies it and its strings. What it points to (the vtables, `ctx`) is
 * kept and must stay valid until `deinit` returns. */
static bool router_register_plugins(const pb_registrar_t *registrar)
{
    pb_plugin_t plugin = {
        .struct_size = sizeof(pb_plugin_t),
        /* Higher priorities are asked first. 10 puts us ahead of plugins with
         * the usual 0, so we see myapp:// links before a catch-all handler. */
        .priority = 10,
        .id = PLUGIN_ID,
        .name = "Deep-link router",
        .version = "1.0.0",
        .ctx = NULL, /* no state needed */
        .launch = &router_launch_vtable,
        .open_url = &router_open_url_vtable,
        .termination = &router_termination_vtable,
        /* Every concern left out is NULL: the host never calls us for it. */
    };

    pb_status_t status = registrar->add_plugin(registrar, &plugin);
    if (status != PB_OK) {
        log_msg(PB_LOG_ERROR, "add_plugin failed with status %d", (int)status);
        return false;
    }
    return true;
}

/* The entry record. `static const`: it must stay valid while the library is
 * loaded, and `plugboard_entry` must return the same record every time. */
static const pb_entry_t router_entry = {
    .struct_size = sizeof(pb_entry_t),
    .abi_major = PB_ABI_VERSION_MAJOR, /* the ABI this file was compiled against */
    .abi_minor = PB_ABI_VERSION_MINOR,
    .init = router_init,
    .deinit = router_deinit,
    .register_plugins = router_register_plugins,
};

/* The one exported symbol. The header already declares it PB_EXPORT (visible
 * despite -fvisibility=hidden); repeating the marker here makes that obvious.
 * It must not call the host: just return the record. */
PB_EXPORT const pb_entry_t *plugboard_entry(void)
{
    return &router_entry;
}
