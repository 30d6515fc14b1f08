/*
 * notification-logger: a Plugboard plugin that takes part in remote (push)
 * notifications, memory warnings and termination, and logs what it sees.
 *
 * It shows the one callback in ABI 1.0 that answers through a completion
 * handle instead of a return value: `did_receive_remote_notification`.
 *
 * Read plugins/deeplink-router/deeplink_router.c first: it explains the parts
 * every plugin has (entry record, init, register_plugins, deinit, vtables).
 *
 * Build it (from the repository root):
 *
 *   cc -std=c11 -Wall -Wextra -pedantic -O2 -shared -fPIC -fvisibility=hidden \
 *      -I include -o notification-logger.so \
 *      plugins/notification-logger/notification_logger.c
 */
#include <plugboard.h>

#include <limits.h> /* INT_MAX */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <string.h> /* strstr */

#define PLUGIN_ID "com.example.notification-logger"

/* ------------------------------------------------------------------------ */
/* Host services                                                            */
/* ------------------------------------------------------------------------ */

/* Kept from `init` until `deinit` (see plugboard/host.h). */
static const pb_host_t *g_host = NULL;

/* With gcc and clang, check the format string of log_msg like printf's. */
#if defined(__GNUC__)
#  define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#  define PRINTF_LIKE(f, a)
#endif
static void log_msg(pb_log_level_t level, const char *format, ...) PRINTF_LIKE(2, 3);

/* printf-style logging through `host->log`; the host copies the message. */
static void log_msg(pb_log_level_t level, const char *format, ...)
{
    char message[1024];
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
/* The remote-notifications concern                                        */
/* ------------------------------------------------------------------------ */

/* The longest token we print in full; longer ones are cut, with a note. */
#define MAX_TOKEN_BYTES 128

/*
 * The device registered for remote notifications. The token is opaque BYTES,
 * not a string: it is not NUL-terminated and may contain any byte value, so
 * never pass it to printf("%s") or strlen. We print it as hex.
 */
static void logger_did_register(void *ctx, const uint8_t *token, size_t token_len)
{
    static const char digits[] = "0123456789abcdef";
    char hex[2 * MAX_TOKEN_BYTES + 1];
    size_t shown = token_len < MAX_TOKEN_BYTES ? token_len : MAX_TOKEN_BYTES;
    size_t i;

    (void)ctx;
    for (i = 0; i < shown; i++) {
        hex[2 * i] = digits[token[i] >> 4];
        hex[2 * i + 1] = digits[token[i] & 0x0f];
    }
    hex[2 * shown] = '\0';

    if (token_len == 0) {
        log_msg(PB_LOG_WARNING, "registered, but the device token is empty");
    } else if (shown < token_len) {
        log_msg(PB_LOG_INFO, "registered, device token %s... (%zu bytes, cut)", hex, token_len);
    } else {
        log_msg(PB_LOG_INFO, "registered, device token %s (%zu bytes)", hex, token_len);
    }
}

/* Registration failed. `error` is text with a length; like every host string
 * it is also NUL-terminated, but printing with the length is the habit to keep. */
static void logger_did_fail_to_register(void *ctx, const char *error, size_t error_len)
{
    (void)ctx;
    log_msg(PB_LOG_WARNING, "registration failed: %.*s", as_int(error_len), error);
}

/*
 * A notification arrived. We must answer through `completion->complete`
 * exactly once: here, before returning (as we do), or later from any thread
 * (for example after a download), as long as it happens before the host's
 * deadline and before `deinit`. The host waits for every plugin that has this
 * slot, so never forget to answer.
 *
 * Our "fetch" is a stand-in: a push whose payload contains the key
 * "content-available" is a background-refresh push, so we pretend we fetched
 * new data; any other push brings nothing new. We look for the key with a
 * plain substring search, which is NOT a JSON parser: it would also match the
 * text inside a string value, and it ignores the key's value
 * ("content-available":0 still counts). Use a real JSON parser in a real plugin.
 * strstr is safe here because every string the host passes is NUL-terminated.
 */
static void logger_did_receive_remote_notification(void *ctx, const char *user_info_json,
                                                   size_t user_info_len,
                                                   const pb_fetch_completion_t *completion)
{
    bool background_refresh = strstr(user_info_json, "\"content-available\"") != NULL;

    (void)ctx;
    log_msg(PB_LOG_INFO, "notification received: %.*s", as_int(user_info_len), user_info_json);

    if (background_refresh) {
        log_msg(PB_LOG_INFO, "content-available: answering new data");
        completion->complete(completion, PB_FETCH_NEW_DATA);
    } else {
        log_msg(PB_LOG_INFO, "nothing to fetch: answering no data");
        completion->complete(completion, PB_FETCH_NO_DATA);
    }
}

static const pb_remote_notifications_t logger_remote_notifications_vtable = {
    .struct_size = sizeof(pb_remote_notifications_t),
    .did_register = logger_did_register,
    .did_fail_to_register = logger_did_fail_to_register,
    .did_receive_remote_notification = logger_did_receive_remote_notification,
};

/* ------------------------------------------------------------------------ */
/* The memory and termination concerns                                      */
/* ------------------------------------------------------------------------ */

/* The system is short of memory. A real plugin frees its caches here; we keep
 * none, so there is only something to say. */
static void logger_did_receive_memory_warning(void *ctx)
{
    (void)ctx;
    log_msg(PB_LOG_WARNING, "memory warning: nothing cached, nothing to free");
}

static const pb_memory_t logger_memory_vtable = {
    .struct_size = sizeof(pb_memory_t),
    .did_receive_memory_warning = logger_did_receive_memory_warning,
};

static void logger_will_terminate(void *ctx)
{
    (void)ctx;
    log_msg(PB_LOG_INFO, "terminating");
}

static const pb_termination_t logger_termination_vtable = {
    .struct_size = sizeof(pb_termination_t),
    .will_terminate = logger_will_terminate,
};

/* ------------------------------------------------------------------------ */
/* The library                                                              */
/* ------------------------------------------------------------------------ */

static bool logger_init(const pb_host_t *host)
{
    g_host = host;
    return true;
}

static void logger_deinit(void)
{
    g_host = NULL;
}

static bool logger_register_plugins(const pb_registrar_t *registrar)
{
    pb_plugin_t plugin = {
        .struct_size = sizeof(pb_plugin_t),
        .priority = 0, /* the usual value */
        .id = PLUGIN_ID,
        .name = "Notification logger",
        .version = "1.0.0",
        .ctx = NULL,
        .remote_notifications = &logger_remote_notifications_vtable,
        .memory = &logger_memory_vtable,
        .termination = &logger_termination_vtable,
    };

    pb_status_t status = registrar->add_plugin(registrar, &plugin);
    if (status != PB_OK) {
        log_msg(PB_LOG_ERROR, "add_plugin failed with status %d", (int)status);
        return false;
    }
    return true;
}

static const pb_entry_t logger_entry = {
    .struct_size = sizeof(pb_entry_t),
    .abi_major = PB_ABI_VERSION_MAJOR,
    .abi_minor = PB_ABI_VERSION_MINOR,
    .init = logger_init,
    .deinit = logger_deinit,
    .register_plugins = logger_register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void)
{
    return &logger_entry;
}
