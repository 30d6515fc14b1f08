/*
 * network-monitor: an example plugin that posts on the notification bus.
 *
 * It follows the application's state and posts com.example.network.status
 * when it changes, with a JSON payload such as
 * {"online":false,"reason":"did-enter-background"}: online while the
 * application is active or in the foreground, offline in the background (a
 * real monitor would ask the system). Other plugins observe the name and
 * never need to know this one: the url-history example logs each status.
 *
 * What it shows:
 *   - reaching the bus: host->notifications (ABI 1.3), read only when the
 *     host's struct_size covers it;
 *   - posting with the plugin's own id; the post is queued and delivered by
 *     the host after the callback returns, so a post never re-enters a plugin;
 *   - the payload is JSON object text, copied by the host before post returns.
 *
 * Build: cc -std=c11 -shared -fPIC -fvisibility=hidden -I include network_monitor.c -o network-monitor.so
 */
#include <plugboard.h>
#include <stdio.h>

static const char *const plugin_id = "com.example.network-monitor";
static const char *const status_name = "com.example.network.status";

/* The host table from init; valid until deinit. */
static const pb_host_t *host;
/* The last status posted: -1 none yet, 0 offline, 1 online. */
static int last_online = -1;

/* The bus, or NULL when the host is older than ABI 1.3. */
static const pb_notifications_t *bus(void) {
    if (!host || host->struct_size < offsetof(pb_host_t, notifications) + sizeof host->notifications) return NULL;
    return host->notifications;
}

/* Posts the status when it changed; `reason` names the state change. */
static void update(int online, const char *reason) {
    if (online == last_online || !bus()) return;
    last_online = online;
    char payload[128];
    snprintf(payload, sizeof payload, "{\"online\":%s,\"reason\":\"%s\"}", online ? "true" : "false", reason);
    pb_status_t status = bus()->post(host, plugin_id, status_name, payload);
    char line[192];
    snprintf(line, sizeof line, status == PB_OK ? "posted %s" : "could not post %s", payload);
    host->log(host, plugin_id, status == PB_OK ? PB_LOG_INFO : PB_LOG_WARNING, line);
}

static void did_become_active(void *ctx) { (void)ctx; update(1, "did-become-active"); }
static void will_enter_foreground(void *ctx) { (void)ctx; update(1, "will-enter-foreground"); }
static void did_enter_background(void *ctx) { (void)ctx; update(0, "did-enter-background"); }

static const pb_app_state_t app_state = {
    .struct_size = sizeof(pb_app_state_t),
    .did_become_active = did_become_active,
    .did_enter_background = did_enter_background,
    .will_enter_foreground = will_enter_foreground,
};

static bool init(const pb_host_t *h) {
    host = h;
    return true;
}

static void deinit(void) {
    host = NULL;
}

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin = {
        .struct_size = sizeof(pb_plugin_t),
        .priority = 0,
        .id = plugin_id,
        .name = "Network monitor",
        .version = "1.0.0",
        .app_state = &app_state,
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

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    return &entry;
}
