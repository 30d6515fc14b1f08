/*
 * The C ABI's surface for libabigail: one exported function whose parameters are every public
 * struct, function-pointer type and typedef of the headers, and an enum whose values are the
 * headers' numeric constants (a #define leaves no trace in debug information; an enumerator
 * does). Built with -g by ABIBaselineTests, dumped with `abidw` and compared with `abidiff`
 * against the current minor's plugboard-1.N.abi (see README.md beside it). PB_ABI_VERSION_MINOR is left out: it
 * changes with every minor by design.
 */
#include <plugboard.h>

/** The headers' numeric constants. */
enum pb_abi_constants {
    ABI_PB_FETCH_NEW_DATA = PB_FETCH_NEW_DATA,
    ABI_PB_FETCH_NO_DATA = PB_FETCH_NO_DATA,
    ABI_PB_FETCH_FAILED = PB_FETCH_FAILED,
    ABI_PB_SAVED_STATE_MAX_SIZE = PB_SAVED_STATE_MAX_SIZE,
    ABI_PB_VALUE_VOID = PB_VALUE_VOID,
    ABI_PB_VALUE_BOOL = PB_VALUE_BOOL,
    ABI_PB_VALUE_INT = PB_VALUE_INT,
    ABI_PB_VALUE_UINT = PB_VALUE_UINT,
    ABI_PB_VALUE_FLOAT = PB_VALUE_FLOAT,
    ABI_PB_VALUE_DOUBLE = PB_VALUE_DOUBLE,
    ABI_PB_VALUE_STRING = PB_VALUE_STRING,
    ABI_PB_VALUE_BYTES = PB_VALUE_BYTES,
    ABI_PB_VALUE_POINTER = PB_VALUE_POINTER,
    ABI_PB_LOG_TRACE = PB_LOG_TRACE,
    ABI_PB_LOG_DEBUG = PB_LOG_DEBUG,
    ABI_PB_LOG_INFO = PB_LOG_INFO,
    ABI_PB_LOG_WARNING = PB_LOG_WARNING,
    ABI_PB_LOG_ERROR = PB_LOG_ERROR,
    ABI_PB_FILES_OVERWRITE = PB_FILES_OVERWRITE,
    ABI_PB_FILES_CREATE_FOLDERS = PB_FILES_CREATE_FOLDERS,
    ABI_PB_FILE_KIND_FILE = PB_FILE_KIND_FILE,
    ABI_PB_FILE_KIND_DIRECTORY = PB_FILE_KIND_DIRECTORY,
    ABI_PB_FILE_KIND_SYMBOLIC_LINK = PB_FILE_KIND_SYMBOLIC_LINK,
    ABI_PB_FILE_KIND_OTHER = PB_FILE_KIND_OTHER,
    ABI_PB_NOTIFICATION_NAME_MAX = PB_NOTIFICATION_NAME_MAX,
    ABI_PB_NOTIFICATION_PAYLOAD_MAX = PB_NOTIFICATION_PAYLOAD_MAX,
    ABI_PB_NOTIFICATION_DEPTH_MAX = PB_NOTIFICATION_DEPTH_MAX,
    ABI_PB_NOTIFICATION_QUEUE_MAX = PB_NOTIFICATION_QUEUE_MAX,
    ABI_PB_NOTIFICATION_OBSERVERS_MAX = PB_NOTIFICATION_OBSERVERS_MAX,
    ABI_PB_OK = PB_OK,
    ABI_PB_ERR_INVALID_ARGUMENT = PB_ERR_INVALID_ARGUMENT,
    ABI_PB_ERR_DUPLICATE_ID = PB_ERR_DUPLICATE_ID,
    ABI_PB_ERR_WRONG_STATE = PB_ERR_WRONG_STATE,
    ABI_PB_ERR_NOT_FOUND = PB_ERR_NOT_FOUND,
    ABI_PB_ERR_EXISTS = PB_ERR_EXISTS,
    ABI_PB_ERR_INVALID_PATH = PB_ERR_INVALID_PATH,
    ABI_PB_ERR_IO = PB_ERR_IO,
    ABI_PB_ERR_PERMISSION = PB_ERR_PERMISSION,
    ABI_PB_ERR_UNAVAILABLE = PB_ERR_UNAVAILABLE,
    ABI_PB_ERR_DENIED = PB_ERR_DENIED,
    ABI_PB_ABI_VERSION_MAJOR = PB_ABI_VERSION_MAJOR,
};

/** Every public type, by value or through a pointer, so that its layout is described. */
PB_EXPORT void pb_abi_surface(enum pb_abi_constants constants, const pb_entry_t *entry, pb_entry_fn entry_function,
                    const pb_host_t *host, const pb_registrar_t *registrar, const pb_plugin_t *plugin,
                    const pb_launch_t *launch, const pb_open_url_t *open_url,
                    const pb_user_activity_t *user_activity, const pb_remote_notifications_t *remote_notifications,
                    const pb_fetch_completion_t *completion, pb_fetch_result_t fetch_result,
                    const pb_memory_t *memory, const pb_protected_data_t *protected_data,
                    const pb_app_state_t *app_state, const pb_termination_t *termination,
                    const pb_saved_state_t *saved_state, const pb_files_t *files, pb_buffer_t buffer,
                    pb_file_attributes_t attributes, pb_file_kind_t file_kind,
                    const pb_notifications_t *notifications, pb_notification_fn notification_function,
                    const pb_function_t *function, pb_value_t value, pb_value_kind_t value_kind, pb_bytes_t bytes,
                    pb_status_t status, pb_log_level_t level) {
    (void)constants; (void)entry; (void)entry_function; (void)host; (void)registrar; (void)plugin; (void)launch;
    (void)open_url; (void)user_activity; (void)remote_notifications; (void)completion; (void)fetch_result; (void)memory;
    (void)protected_data; (void)app_state; (void)termination; (void)saved_state; (void)files; (void)buffer;
    (void)attributes; (void)file_kind; (void)notifications; (void)notification_function; (void)function; (void)value;
    (void)value_kind; (void)bytes; (void)status; (void)level;
}
