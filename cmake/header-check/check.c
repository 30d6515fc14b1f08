/*
 * Header check (C): the public headers must compile cleanly as C99, C11 and
 * C17 with -Wall -Wextra -pedantic -Werror (CMakeLists.txt builds this file
 * once per standard, as an OBJECT library: compiled, never linked or run).
 */
#include <plugboard.h>
#include <plugboard.h> /* a second time: every header is include-guarded */

#include <stddef.h> /* offsetof */

/* The version macros work in #if. */
#if PB_ABI_VERSION_MAJOR != 1u
#  error "these checks describe ABI 1.x"
#endif

/* The entry symbol's declaration matches the documented function type. */
pb_entry_fn pb_check_entry_fn = plugboard_entry;

/* Each type can be declared and initialized by a plain C99 designated
 * initializer, which is how plugins fill them. */
static bool check_launch(void *ctx, const char *json, size_t len)
{
    (void)ctx;
    (void)json;
    (void)len;
    return true;
}

static const pb_launch_t check_launch_vtable = {
    .struct_size = sizeof(pb_launch_t),
    .will_finish_launching = check_launch,
};

const pb_plugin_t pb_check_plugin = {
    .struct_size = sizeof(pb_plugin_t),
    .id = "com.example.header-check",
    .launch = &check_launch_vtable,
};

/* The constants have the documented values and fit their types. */
const pb_status_t pb_check_status[] = {PB_OK, PB_ERR_INVALID_ARGUMENT, PB_ERR_DUPLICATE_ID,
                                       PB_ERR_WRONG_STATE};
const pb_log_level_t pb_check_levels[] = {PB_LOG_TRACE, PB_LOG_DEBUG, PB_LOG_INFO,
                                          PB_LOG_WARNING, PB_LOG_ERROR};
const pb_fetch_result_t pb_check_fetch[] = {PB_FETCH_NEW_DATA, PB_FETCH_NO_DATA,
                                            PB_FETCH_FAILED};
const char pb_check_symbol[] = PB_ENTRY_SYMBOL;

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* Every versioned struct starts with its uint32_t struct_size. */
#  define PB_CHECK_FIRST(type)                                                   \
      _Static_assert(offsetof(type, struct_size) == 0, #type " starts with struct_size")
PB_CHECK_FIRST(pb_host_t);
PB_CHECK_FIRST(pb_registrar_t);
PB_CHECK_FIRST(pb_entry_t);
PB_CHECK_FIRST(pb_plugin_t);
PB_CHECK_FIRST(pb_launch_t);
PB_CHECK_FIRST(pb_open_url_t);
PB_CHECK_FIRST(pb_user_activity_t);
PB_CHECK_FIRST(pb_remote_notifications_t);
PB_CHECK_FIRST(pb_memory_t);
PB_CHECK_FIRST(pb_protected_data_t);
PB_CHECK_FIRST(pb_app_state_t);
PB_CHECK_FIRST(pb_termination_t);
PB_CHECK_FIRST(pb_function_t);
PB_CHECK_FIRST(pb_saved_state_t);
PB_CHECK_FIRST(pb_notifications_t);

/* The ABI 1.0 layout on LP64 (x86_64, aarch64 Linux). A minor version may only
 * append fields: update these sizes then, and never the offsets. */
#  if defined(__LP64__)
#    define PB_CHECK_SIZE(type, size) _Static_assert(sizeof(type) == (size), #type " size")
PB_CHECK_SIZE(pb_host_t, 112);
PB_CHECK_SIZE(pb_notifications_t, 32);
PB_CHECK_SIZE(pb_files_t, 104);
PB_CHECK_SIZE(pb_file_attributes_t, 40);
PB_CHECK_SIZE(pb_buffer_t, 16);
PB_CHECK_SIZE(pb_registrar_t, 32);
PB_CHECK_SIZE(pb_entry_t, 40);
PB_CHECK_SIZE(pb_plugin_t, 128);
PB_CHECK_SIZE(pb_launch_t, 24);
PB_CHECK_SIZE(pb_open_url_t, 16);
PB_CHECK_SIZE(pb_user_activity_t, 16);
PB_CHECK_SIZE(pb_remote_notifications_t, 32);
PB_CHECK_SIZE(pb_fetch_completion_t, 24);
PB_CHECK_SIZE(pb_memory_t, 16);
PB_CHECK_SIZE(pb_protected_data_t, 24);
PB_CHECK_SIZE(pb_app_state_t, 40);
PB_CHECK_SIZE(pb_termination_t, 16);
PB_CHECK_SIZE(pb_function_t, 48);
PB_CHECK_SIZE(pb_bytes_t, 16);
PB_CHECK_SIZE(pb_value_t, 72);
PB_CHECK_SIZE(pb_saved_state_t, 32);
_Static_assert(offsetof(pb_host_t, invoke) == 56, "pb_host_t.invoke (1.2: the 1.1 struct ends here)");
_Static_assert(offsetof(pb_host_t, notifications) == 72, "pb_host_t.notifications (1.3: the 1.2 struct ends here)");
_Static_assert(offsetof(pb_host_t, prepare_invoke) == 80, "pb_host_t.prepare_invoke (1.4: the 1.3 struct ends here)");
_Static_assert(offsetof(pb_host_t, log) == 40, "pb_host_t.log");
_Static_assert(offsetof(pb_entry_t, register_plugins) == 32, "pb_entry_t.register_plugins");
_Static_assert(offsetof(pb_plugin_t, ctx) == 32, "pb_plugin_t.ctx");
_Static_assert(offsetof(pb_plugin_t, launch) == 40, "pb_plugin_t.launch");
_Static_assert(offsetof(pb_plugin_t, termination) == 96, "pb_plugin_t.termination");
_Static_assert(offsetof(pb_plugin_t, functions) == 104, "pb_plugin_t.functions (1.2: the 1.0 struct ends here)");
_Static_assert(offsetof(pb_plugin_t, saved_state) == 120, "pb_plugin_t.saved_state (1.3: the 1.2 struct ends here)");
#  endif
#endif
