//! Prints the size of every `#[repr(C)]` mirror, the offset of each of its fields and every
//! constant, one per line, in the format the test suite's C program prints for the header:
//! `size pb_entry_t 40`, `offset pb_entry_t.init 16`, `constant PB_OK 0`.
//! Run with `cargo run --offline --example abi_layout`.

use plugboard::abi::*;
use std::mem::{offset_of, size_of};

/// Prints one struct: its size and the offset of each listed field.
macro_rules! layout {
    ($($type:ident { $($field:ident),+ $(,)? })+) => {$(
        println!("size {} {}", stringify!($type), size_of::<$type>());
        $(println!("offset {}.{} {}", stringify!($type), stringify!($field).trim_start_matches("r#"), offset_of!($type, $field));)+
    )+};
}

/// Prints each constant's value.
macro_rules! constants {
    ($($name:ident),+ $(,)?) => {$(println!("constant {} {}", stringify!($name), $name);)+};
}

fn main() {
    layout! {
        pb_host_t {
            struct_size, abi_major, abi_minor, name, version, host_data, log, files, invoke, release_value, notifications,
            prepare_invoke, set_prepared_argument, call_prepared, release_prepared
        }
        pb_notifications_t { struct_size, post, observe, stop_observing }
        pb_buffer_t { data, size }
        pb_file_attributes_t { struct_size, kind, size, permissions, owner_id, modified_ns, created_ns }
        pb_files_t { struct_size, write, read, free_buffer, remove, rename, r#move, copy, change_extension, list, attributes, exists, last_error }
        pb_launch_t { struct_size, will_finish_launching, did_finish_launching }
        pb_open_url_t { struct_size, open_url }
        pb_user_activity_t { struct_size, continue_user_activity }
        pb_fetch_completion_t { struct_size, host_data, complete }
        pb_remote_notifications_t { struct_size, did_register, did_fail_to_register, did_receive_remote_notification }
        pb_memory_t { struct_size, did_receive_memory_warning }
        pb_protected_data_t { struct_size, will_become_unavailable, did_become_available }
        pb_app_state_t { struct_size, did_become_active, will_resign_active, did_enter_background, will_enter_foreground }
        pb_termination_t { struct_size, will_terminate }
        pb_saved_state_t { struct_size, save_state, release_state, restore_state }
        pb_bytes_t { data, size }
        pb_value_t { kind, boolean, integer, unsigned_integer, float_value, double_value, string, bytes, pointer }
        pb_function_t { struct_size, name, signature, doc, function, release }
        pb_plugin_t { struct_size, priority, id, name, version, ctx, launch, open_url, user_activity, remote_notifications, memory, protected_data, app_state, termination, functions, function_count, saved_state }
        pb_registrar_t { struct_size, host, host_data, add_plugin }
        pb_entry_t { struct_size, abi_major, abi_minor, init, deinit, register_plugins }
    }
    constants! {
        PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR,
        PB_OK, PB_ERR_INVALID_ARGUMENT, PB_ERR_DUPLICATE_ID, PB_ERR_WRONG_STATE, PB_ERR_NOT_FOUND, PB_ERR_EXISTS,
        PB_ERR_INVALID_PATH, PB_ERR_IO, PB_ERR_PERMISSION, PB_ERR_UNAVAILABLE, PB_ERR_DENIED,
        PB_LOG_TRACE, PB_LOG_DEBUG, PB_LOG_INFO, PB_LOG_WARNING, PB_LOG_ERROR,
        PB_FILES_OVERWRITE, PB_FILES_CREATE_FOLDERS,
        PB_FILE_KIND_FILE, PB_FILE_KIND_DIRECTORY, PB_FILE_KIND_SYMBOLIC_LINK, PB_FILE_KIND_OTHER,
        PB_NOTIFICATION_NAME_MAX, PB_NOTIFICATION_PAYLOAD_MAX, PB_NOTIFICATION_DEPTH_MAX,
        PB_NOTIFICATION_QUEUE_MAX, PB_NOTIFICATION_OBSERVERS_MAX,
        PB_FETCH_NEW_DATA, PB_FETCH_NO_DATA, PB_FETCH_FAILED,
        PB_VALUE_VOID, PB_VALUE_BOOL, PB_VALUE_INT, PB_VALUE_UINT, PB_VALUE_FLOAT, PB_VALUE_DOUBLE, PB_VALUE_STRING,
        PB_VALUE_BYTES, PB_VALUE_POINTER,
        PB_SAVED_STATE_MAX_SIZE,
    }
}
