//! Hand-written `#[repr(C)]` mirrors of every struct and constant in `include/plugboard/**`.
//!
//! Names and layouts follow the C header exactly (`pb_plugin_t` is `pb_plugin_t`), so the
//! header's comments are the documentation of every field; the test suite compares each
//! struct's size and each field's offset with what a C compiler reports for the header.
//! A function pointer the header allows to be NULL is an `Option<unsafe extern "C" fn>`.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void};

// ---- version.h -------------------------------------------------------------------------

/// ABI major version (`PB_ABI_VERSION_MAJOR`). A plugin with another major is refused.
pub const PB_ABI_VERSION_MAJOR: u32 = 1;
/// ABI minor version (`PB_ABI_VERSION_MINOR`) these mirrors describe.
pub const PB_ABI_VERSION_MINOR: u32 = 5;

// ---- types.h ---------------------------------------------------------------------------

/// Result of a host service call: `PB_OK` or one of the negative `PB_ERR_*` codes.
pub type pb_status_t = i32;
/// Success.
pub const PB_OK: pb_status_t = 0;
/// An argument was NULL, too small, or malformed.
pub const PB_ERR_INVALID_ARGUMENT: pb_status_t = -1;
/// A plugin with the same id was already added by this library.
pub const PB_ERR_DUPLICATE_ID: pb_status_t = -2;
/// The call came at a time its tag does not allow.
pub const PB_ERR_WRONG_STATE: pb_status_t = -3;
/// The path, or one of its folders, does not exist (since 1.1).
pub const PB_ERR_NOT_FOUND: pb_status_t = -4;
/// The destination exists and `PB_FILES_OVERWRITE` was not given (since 1.1).
pub const PB_ERR_EXISTS: pb_status_t = -5;
/// The path is malformed, leaves the container, or goes through a symbolic link (since 1.1).
pub const PB_ERR_INVALID_PATH: pb_status_t = -6;
/// The system failed (since 1.1).
pub const PB_ERR_IO: pb_status_t = -7;
/// The system denied access (since 1.1).
pub const PB_ERR_PERMISSION: pb_status_t = -8;
/// The host offers no such service here (since 1.1).
pub const PB_ERR_UNAVAILABLE: pb_status_t = -9;
/// The host's policy denies the library this service: files, invoke or post (since 1.3).
pub const PB_ERR_DENIED: pb_status_t = -10;

// ---- host.h ----------------------------------------------------------------------------

/// Severity of a log message.
pub type pb_log_level_t = i32;
/// Fine-grained tracing.
pub const PB_LOG_TRACE: pb_log_level_t = 0;
/// Diagnostic detail.
pub const PB_LOG_DEBUG: pb_log_level_t = 1;
/// Normal operation worth noting.
pub const PB_LOG_INFO: pb_log_level_t = 2;
/// Something odd that the plugin recovered from.
pub const PB_LOG_WARNING: pb_log_level_t = 3;
/// A failure.
pub const PB_LOG_ERROR: pb_log_level_t = 4;

/// An invocation prepared with `pb_host_t::prepare_invoke` (since 1.4): an opaque handle.
#[repr(C)]
pub struct pb_prepared_invoke_t {
    _opaque: [u8; 0],
}

/// The host services table handed to `init`. Host-owned, valid for the life of the process.
#[derive(Debug)]
#[repr(C)]
pub struct pb_host_t {
    pub struct_size: u32,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub name: *const c_char,
    pub version: *const c_char,
    pub host_data: *mut c_void,
    /// Since 1.0. [thread-safe]
    pub log: Option<unsafe extern "C" fn(host: *const pb_host_t, plugin_id: *const c_char, level: pb_log_level_t, message: *const c_char)>,
    /// Since 1.1; NULL when the host has no container. Read only when `struct_size` covers it.
    pub files: *const pb_files_t,
    /// Since 1.2: calls another plugin's function by "plugin-id.function". Read only when
    /// `struct_size` covers it. [thread-safe]
    pub invoke: Option<unsafe extern "C" fn(host: *const pb_host_t, function: *const c_char, arguments: *const pb_value_t,
                                            argument_count: usize, result: *mut pb_value_t, error: *mut c_char,
                                            error_size: usize) -> pb_status_t>,
    /// Since 1.2: frees a string or bytes result of `invoke`. [thread-safe]
    pub release_value: Option<unsafe extern "C" fn(host: *const pb_host_t, value: *mut pb_value_t)>,
    /// Since 1.3: the notification bus. Read only when `struct_size` covers it.
    pub notifications: *const pb_notifications_t,
    /// Since 1.4: prepares calls of a function, checked once. Read only when `struct_size` covers it. [thread-safe]
    pub prepare_invoke: Option<unsafe extern "C" fn(host: *const pb_host_t, function: *const c_char, arguments: *const pb_value_t,
                                                    argument_count: usize, prepared: *mut *mut pb_prepared_invoke_t,
                                                    error: *mut c_char, error_size: usize) -> pb_status_t>,
    /// Since 1.4: sets one argument of a prepared invocation, checked. [thread-safe]
    pub set_prepared_argument: Option<unsafe extern "C" fn(host: *const pb_host_t, prepared: *mut pb_prepared_invoke_t, index: usize,
                                                           value: *const pb_value_t, error: *mut c_char,
                                                           error_size: usize) -> pb_status_t>,
    /// Since 1.4: calls a prepared invocation. [thread-safe]
    pub call_prepared: Option<unsafe extern "C" fn(host: *const pb_host_t, prepared: *mut pb_prepared_invoke_t, result: *mut pb_value_t,
                                                   error: *mut c_char, error_size: usize) -> pb_status_t>,
    /// Since 1.4: frees a prepared invocation. [thread-safe]
    pub release_prepared: Option<unsafe extern "C" fn(host: *const pb_host_t, prepared: *mut pb_prepared_invoke_t)>,
}

impl pb_host_t {
    /// Whether the host's table reaches the end of the field that starts at `offset` and is
    /// `size` bytes long: an older host hands over a shorter table, whose missing fields are not read.
    pub fn covers(&self, offset: usize, size: usize) -> bool {
        self.struct_size as usize >= offset + size
    }
}

// ---- services/files.h ------------------------------------------------------------------

/// Flag: replace an existing destination.
pub const PB_FILES_OVERWRITE: u32 = 1;
/// Flag: create missing folders of the destination.
pub const PB_FILES_CREATE_FOLDERS: u32 = 2;

/// A byte buffer the host allocated; release it with `pb_files_t::free_buffer`.
#[derive(Debug)]
#[repr(C)]
pub struct pb_buffer_t {
    pub data: *mut u8,
    pub size: usize,
}

/// What kind of thing a path names.
pub type pb_file_kind_t = i32;
/// A regular file.
pub const PB_FILE_KIND_FILE: pb_file_kind_t = 0;
/// A directory.
pub const PB_FILE_KIND_DIRECTORY: pb_file_kind_t = 1;
/// A symbolic link.
pub const PB_FILE_KIND_SYMBOLIC_LINK: pb_file_kind_t = 2;
/// Anything else.
pub const PB_FILE_KIND_OTHER: pb_file_kind_t = 3;

/// A file's attributes, filled by `pb_files_t::attributes` (set `struct_size` first).
#[derive(Debug)]
#[repr(C)]
pub struct pb_file_attributes_t {
    pub struct_size: u32,
    pub kind: pb_file_kind_t,
    pub size: u64,
    pub permissions: u32,
    pub owner_id: u32,
    pub modified_ns: i64,
    pub created_ns: i64,
}

/// The files service (since 1.1). Host-owned; every function is [thread-safe].
#[derive(Debug)]
#[repr(C)]
pub struct pb_files_t {
    pub struct_size: u32,
    pub write: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char, data: *const c_void, size: usize, flags: u32) -> pb_status_t>,
    pub read: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char, out: *mut pb_buffer_t) -> pb_status_t>,
    pub free_buffer: Option<unsafe extern "C" fn(host: *const pb_host_t, buffer: *mut pb_buffer_t)>,
    pub remove: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char) -> pb_status_t>,
    pub rename: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char, new_name: *const c_char, flags: u32) -> pb_status_t>,
    pub r#move: Option<unsafe extern "C" fn(host: *const pb_host_t, from: *const c_char, to: *const c_char, flags: u32) -> pb_status_t>,
    pub copy: Option<unsafe extern "C" fn(host: *const pb_host_t, from: *const c_char, to: *const c_char, flags: u32) -> pb_status_t>,
    pub change_extension: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char, extension: *const c_char, flags: u32, new_path: *mut pb_buffer_t) -> pb_status_t>,
    pub list: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char, out: *mut pb_buffer_t) -> pb_status_t>,
    pub attributes: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char, out: *mut pb_file_attributes_t) -> pb_status_t>,
    pub exists: Option<unsafe extern "C" fn(host: *const pb_host_t, path: *const c_char, exists: *mut bool) -> pb_status_t>,
    pub last_error: Option<unsafe extern "C" fn(host: *const pb_host_t, buffer: *mut c_char, capacity: usize) -> usize>,
}

// ---- services/notifications.h ----------------------------------------------------------

/// The longest notification name, in bytes (since 1.3).
pub const PB_NOTIFICATION_NAME_MAX: u32 = 255;
/// The largest payload, in bytes of JSON text (since 1.3).
pub const PB_NOTIFICATION_PAYLOAD_MAX: u32 = 65536;
/// The deepest notification delivered (posted from observers, nested) (since 1.3).
pub const PB_NOTIFICATION_DEPTH_MAX: u32 = 16;
/// The most notifications waiting for delivery at once; a post past it is refused.
pub const PB_NOTIFICATION_QUEUE_MAX: u32 = 4096;
/// The most observations one library holds at once; an observe past it is refused.
pub const PB_NOTIFICATION_OBSERVERS_MAX: u32 = 1024;

/// An observer: `(ctx, name, payload_json, sender_id)`, on the dispatch thread; the strings
/// are host-owned and valid during the call only (since 1.3).
pub type pb_notification_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, name: *const c_char, payload_json: *const c_char, sender_id: *const c_char)>;

/// The notification bus (since 1.3). Host-owned; every function is [thread-safe].
#[derive(Debug)]
#[repr(C)]
pub struct pb_notifications_t {
    pub struct_size: u32,
    pub post: Option<unsafe extern "C" fn(host: *const pb_host_t, plugin_id: *const c_char, name: *const c_char,
                                          payload_json: *const c_char) -> pb_status_t>,
    pub observe: Option<unsafe extern "C" fn(host: *const pb_host_t, plugin_id: *const c_char, name: *const c_char,
                                             callback: pb_notification_fn, ctx: *mut c_void, token: *mut u64) -> pb_status_t>,
    pub stop_observing: Option<unsafe extern "C" fn(host: *const pb_host_t, token: u64) -> pb_status_t>,
}

// ---- events/*.h ------------------------------------------------------------------------

/// Launch events (`events/launch.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_launch_t {
    pub struct_size: u32,
    pub will_finish_launching: Option<unsafe extern "C" fn(ctx: *mut c_void, options_json: *const c_char, options_len: usize) -> bool>,
    pub did_finish_launching: Option<unsafe extern "C" fn(ctx: *mut c_void, options_json: *const c_char, options_len: usize) -> bool>,
}

/// URL opening (`events/open-url.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_open_url_t {
    pub struct_size: u32,
    pub open_url: Option<unsafe extern "C" fn(ctx: *mut c_void, url: *const c_char, url_len: usize, options_json: *const c_char, options_len: usize) -> bool>,
}

/// User activity continuation (`events/user-activity.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_user_activity_t {
    pub struct_size: u32,
    pub continue_user_activity: Option<unsafe extern "C" fn(ctx: *mut c_void, activity_type: *const c_char, type_len: usize, user_info_json: *const c_char, user_info_len: usize) -> bool>,
}

/// What a plugin fetched in answer to a remote notification.
pub type pb_fetch_result_t = i32;
/// New data was fetched.
pub const PB_FETCH_NEW_DATA: pb_fetch_result_t = 0;
/// Nothing new.
pub const PB_FETCH_NO_DATA: pb_fetch_result_t = 1;
/// The fetch failed.
pub const PB_FETCH_FAILED: pb_fetch_result_t = 2;

/// The completion handle of a remote notification. Host-owned, valid for the life of the process.
#[derive(Debug)]
#[repr(C)]
pub struct pb_fetch_completion_t {
    pub struct_size: u32,
    pub host_data: *mut c_void,
    /// Answers the notification, exactly once. [thread-safe]
    pub complete: Option<unsafe extern "C" fn(completion: *const pb_fetch_completion_t, result: pb_fetch_result_t)>,
}

/// Remote notifications (`events/remote-notifications.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_remote_notifications_t {
    pub struct_size: u32,
    pub did_register: Option<unsafe extern "C" fn(ctx: *mut c_void, token: *const u8, token_len: usize)>,
    pub did_fail_to_register: Option<unsafe extern "C" fn(ctx: *mut c_void, error: *const c_char, error_len: usize)>,
    pub did_receive_remote_notification: Option<unsafe extern "C" fn(ctx: *mut c_void, user_info_json: *const c_char, user_info_len: usize, completion: *const pb_fetch_completion_t)>,
}

/// Memory pressure (`events/memory.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_memory_t {
    pub struct_size: u32,
    pub did_receive_memory_warning: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
}

/// Protected-data changes (`events/protected-data.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_protected_data_t {
    pub struct_size: u32,
    pub will_become_unavailable: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
    pub did_become_available: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
}

/// Application state changes (`events/app-state.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_app_state_t {
    pub struct_size: u32,
    pub did_become_active: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
    pub will_resign_active: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
    pub did_enter_background: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
    pub will_enter_foreground: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
}

/// Termination (`events/termination.h`). Plugin-owned. [dispatch-thread]
#[derive(Debug)]
#[repr(C)]
pub struct pb_termination_t {
    pub struct_size: u32,
    pub will_terminate: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
}

/// The largest state a plugin may save (`PB_SAVED_STATE_MAX_SIZE`, 16 MiB; since 1.3).
pub const PB_SAVED_STATE_MAX_SIZE: usize = 16_777_216;

/// Saved state kept across runs (`events/saved-state.h`, since 1.3). Plugin-owned. [dispatch-thread]
/// `save_state` fills `out` (plugin-owned bytes, then `release_state`); `restore_state` gets the
/// bytes and the version that saved them, borrowed for the call.
#[derive(Debug)]
#[repr(C)]
pub struct pb_saved_state_t {
    pub struct_size: u32,
    pub save_state: Option<unsafe extern "C" fn(ctx: *mut c_void, out: *mut pb_bytes_t) -> pb_status_t>,
    pub release_state: Option<unsafe extern "C" fn(ctx: *mut c_void, data: *const u8, size: usize)>,
    pub restore_state: Option<
        unsafe extern "C" fn(ctx: *mut c_void, saved_version: *const c_char, data: *const u8, size: usize) -> pb_status_t,
    >,
}

// ---- functions.h (since 1.2) -----------------------------------------------------------

/// A byte buffer returned by value from a function whose signature returns `bytes`.
#[derive(Debug)]
#[repr(C)]
pub struct pb_bytes_t {
    pub data: *const u8,
    pub size: usize,
}

/// Which field of a `pb_value_t` holds the value (`PB_VALUE_*`).
pub type pb_value_kind_t = i32;
/// No value: the result of a `void` function.
pub const PB_VALUE_VOID: pb_value_kind_t = 0;
/// `boolean`.
pub const PB_VALUE_BOOL: pb_value_kind_t = 1;
/// `integer`: a signed integer of any declared width.
pub const PB_VALUE_INT: pb_value_kind_t = 2;
/// `unsigned_integer`: an unsigned integer of any declared width.
pub const PB_VALUE_UINT: pb_value_kind_t = 3;
/// `float_value`.
pub const PB_VALUE_FLOAT: pb_value_kind_t = 4;
/// `double_value`.
pub const PB_VALUE_DOUBLE: pb_value_kind_t = 5;
/// `string`: NUL-terminated UTF-8.
pub const PB_VALUE_STRING: pb_value_kind_t = 6;
/// `bytes`.
pub const PB_VALUE_BYTES: pb_value_kind_t = 7;
/// `pointer`: only between plugins in one process.
pub const PB_VALUE_POINTER: pb_value_kind_t = 8;

/// One argument or result of `pb_host_t.invoke`: `kind` says which field holds the value.
/// Arguments are the caller's, borrowed for the call; a string or bytes result is freed
/// with `pb_host_t.release_value`.
#[derive(Debug)]
#[repr(C)]
pub struct pb_value_t {
    pub kind: pb_value_kind_t,
    pub boolean: bool,
    pub integer: i64,
    pub unsigned_integer: u64,
    pub float_value: f32,
    pub double_value: f64,
    pub string: *const c_char,
    pub bytes: pb_bytes_t,
    pub pointer: *mut c_void,
}

/// One function a plugin offers to be called by name. Plugin-owned; the host copies the
/// strings in `add_plugin` and keeps `function` and `release` until `deinit`.
#[derive(Debug)]
#[repr(C)]
pub struct pb_function_t {
    pub struct_size: u32,
    pub name: *const c_char,
    pub signature: *const c_char,
    pub doc: *const c_char,
    pub function: Option<unsafe extern "C" fn()>,
    pub release: Option<unsafe extern "C" fn(result: *mut c_void)>,
}

// ---- plugin.h --------------------------------------------------------------------------

/// One plugin's descriptor. The host copies it and its strings; vtables and `ctx` are kept.
#[derive(Debug)]
#[repr(C)]
pub struct pb_plugin_t {
    pub struct_size: u32,
    pub priority: i32,
    pub id: *const c_char,
    pub name: *const c_char,
    pub version: *const c_char,
    pub ctx: *mut c_void,
    pub launch: *const pb_launch_t,
    pub open_url: *const pb_open_url_t,
    pub user_activity: *const pb_user_activity_t,
    pub remote_notifications: *const pb_remote_notifications_t,
    pub memory: *const pb_memory_t,
    pub protected_data: *const pb_protected_data_t,
    pub app_state: *const pb_app_state_t,
    pub termination: *const pb_termination_t,
    pub functions: *const pb_function_t,
    pub function_count: u32,
    pub saved_state: *const pb_saved_state_t,
}

// ---- entry.h ---------------------------------------------------------------------------

/// Handed to `register_plugins`; host-owned, valid only during that call. \[register\]
#[derive(Debug)]
#[repr(C)]
pub struct pb_registrar_t {
    pub struct_size: u32,
    pub host: *const pb_host_t,
    pub host_data: *mut c_void,
    pub add_plugin: Option<unsafe extern "C" fn(registrar: *const pb_registrar_t, plugin: *const pb_plugin_t) -> pb_status_t>,
}

/// The entry record `plugboard_entry` returns. Library-owned, valid while the library is loaded.
#[derive(Debug)]
#[repr(C)]
pub struct pb_entry_t {
    pub struct_size: u32,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub init: Option<unsafe extern "C" fn(host: *const pb_host_t) -> bool>,
    pub deinit: Option<unsafe extern "C" fn()>,
    pub register_plugins: Option<unsafe extern "C" fn(registrar: *const pb_registrar_t) -> bool>,
}

/// The type of the entry symbol.
pub type pb_entry_fn = Option<unsafe extern "C" fn() -> *const pb_entry_t>;
