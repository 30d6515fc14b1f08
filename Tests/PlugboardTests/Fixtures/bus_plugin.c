/*
 * A well-behaved user of the notification bus, for the bus tests. Chosen with -D:
 *
 * Identity: BUS_ID (default "com.example.bus"), BUS_PRIORITY (default 0).
 * BUS_OBSERVE "name"   observes the name in will_finish_launching (the first event)
 *                      and logs "received NAME PAYLOAD from SENDER" for each delivery.
 * BUS_OBSERVE_TWICE    adds a second observer of it, logging "received again NAME".
 * BUS_REPOST "name"    posts that name ({"from":BUS_ID}) from its observer.
 * BUS_STOP_ON_RECEIVE  stops its first observation from inside its callback.
 * BUS_POST "name"      posts the name twice in open_url ({"n":1}, then {"n":2}), logging
 *                      "posted" after each and "open-url returns" last (also with BUS_THREAD_POST).
 * BUS_THREAD_POST "name"  in open_url, starts a thread that posts the name
 *                      ({"thread":true}) and joins it before returning.
 *
 * Every status other than PB_OK is logged as "STATUS call=N".
 */
#include <plugboard.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef BUS_ID
#define BUS_ID "com.example.bus"
#endif
#ifndef BUS_PRIORITY
#define BUS_PRIORITY 0
#endif

static const pb_host_t *host;
__attribute__((unused)) static uint64_t first_token;

static void say(const char *text) { host->log(host, BUS_ID, PB_LOG_INFO, text); }

static void check(const char *call, pb_status_t status) {
    if (status == PB_OK) return;
    char line[128];
    snprintf(line, sizeof line, "STATUS %s=%d", call, (int)status);
    say(line);
}

#ifdef BUS_OBSERVE
static void received(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx;
    char line[512];
    snprintf(line, sizeof line, "received %s %s from %s", name, payload, sender);
    say(line);
#ifdef BUS_STOP_ON_RECEIVE
    check("stop_observing", host->notifications->stop_observing(host, first_token));
#endif
#ifdef BUS_REPOST
    check("post", host->notifications->post(host, BUS_ID, BUS_REPOST, "{\"from\":\"" BUS_ID "\"}"));
#endif
}
#endif

#ifdef BUS_OBSERVE_TWICE
static void received_again(void *ctx, const char *name, const char *payload, const char *sender) {
    (void)ctx; (void)payload; (void)sender;
    char line[512];
    snprintf(line, sizeof line, "received again %s", name);
    say(line);
}
#endif

#ifdef BUS_THREAD_POST
static void *post_from_thread(void *unused) {
    (void)unused;
    check("post", host->notifications->post(host, BUS_ID, BUS_THREAD_POST, "{\"thread\":true}"));
    return NULL;
}
#endif

static bool will_finish(void *ctx, const char *options, size_t length) {
    (void)ctx; (void)options; (void)length;
#ifdef BUS_OBSERVE
    check("observe", host->notifications->observe(host, BUS_ID, BUS_OBSERVE, received, NULL, &first_token));
#endif
#ifdef BUS_OBSERVE_TWICE
    uint64_t second = 0;
    check("observe", host->notifications->observe(host, BUS_ID, BUS_OBSERVE, received_again, NULL, &second));
#endif
    return true;
}

static bool open_url(void *ctx, const char *url, size_t url_length, const char *options, size_t options_length) {
    (void)ctx; (void)url; (void)url_length; (void)options; (void)options_length;
#ifdef BUS_POST
    check("post", host->notifications->post(host, BUS_ID, BUS_POST, "{\"n\":1}"));
    say("posted");
    check("post", host->notifications->post(host, BUS_ID, BUS_POST, "{\"n\":2}"));
    say("posted");
#endif
#ifdef BUS_THREAD_POST
    pthread_t thread;
    if (pthread_create(&thread, NULL, post_from_thread, NULL) == 0) pthread_join(thread, NULL);
#endif
#if defined(BUS_POST) || defined(BUS_THREAD_POST)
    say("open-url returns");
#endif
    return false;
}

static const pb_launch_t launch = {sizeof(pb_launch_t), will_finish, NULL};
static const pb_open_url_t urls = {sizeof(pb_open_url_t), open_url};

static bool init(const pb_host_t *given) {
    host = given;
    return host->struct_size >= offsetof(pb_host_t, notifications) + sizeof host->notifications;
}

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.struct_size = sizeof plugin;
    plugin.priority = BUS_PRIORITY;
    plugin.id = BUS_ID;
    plugin.name = "Bus";
    plugin.version = "1.0";
    plugin.launch = &launch;
    plugin.open_url = &urls;
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL, register_plugins};

PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
