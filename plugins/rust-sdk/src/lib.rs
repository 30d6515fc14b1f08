//! Write Plugboard plugins in safe Rust, with the standard library only.
//!
//! A plugin is a type that implements [`Plugin`] (its id, name, version, priority and
//! constructor) and the concern traits it takes part in ([`LaunchPlugin`],
//! [`OpenUrlPlugin`], …). [`export_plugins!`] exports the library's one C symbol,
//! `plugboard_entry`, for a list of such types. Build the crate as a `cdylib`; see
//! `plugins/rust-example/` for a complete plugin.
//!
//! A plugin may also offer functions that the host and other plugins call by name: methods
//! declared with [`functions!`] and the concern `FunctionsPlugin` (see [the `functions` module](mod@functions)).
//! A plugin calls another plugin's function with [`Host::invoke`], and talks to other plugins on
//! the notification bus with [`Host::post`] and [`Host::observe`].
//!
//! [`abi`] holds the hand-written `#[repr(C)]` mirrors of the C header; the repository's
//! test suite compares every struct's size and every field's offset with the header.
//!
//! # Panics are fail-closed
//!
//! A panic must not unwind into the host, so every callback runs inside
//! `std::panic::catch_unwind`. A caught panic is logged through the host log at
//! `PB_LOG_ERROR`, attributed to the plugin (`panic in open_url: <message>`), and
//! the callback answers:
//!
//! | callback | answer after a panic |
//! |---|---|
//! | `will_finish_launching`, `did_finish_launching` | `false`: a veto |
//! | `open_url`, `continue_user_activity` | `false`: not handled |
//! | `did_receive_remote_notification` | the completion answers `Failed` (unless answered before the panic) |
//! | broadcasts (registration results, memory, protected data, app state, termination) | nothing |
//! | `save_state` | nothing saved: the previous state is kept |
//! | `restore_state` | refused: the plugin starts without state |
//! | a function declared with [`functions!`] | its result type's fail value: `false`, `0`, NaN, NULL, `""`, empty bytes |
//! | `Plugin::new` (in `register_plugins`) | `register_plugins` returns false: none of the library's plugins is used |
//! | a plugin's `Drop` (in `deinit`) | logged; the remaining plugins are still dropped |
//!
//! The release profile must keep `panic = "unwind"` (the default): with `panic = "abort"`
//! a panic ends the process (a worker, with `--isolation process`).

pub mod abi;
mod completion;
pub mod functions;
#[doc(hidden)]
#[path = "export.rs"]
pub mod __export;
mod host;
mod invoke;
mod notifications;
mod plugin;

pub use completion::{FetchCompletion, FetchResult};
pub use functions::{FunctionResult, FunctionsPlugin, ScalarArgument};
pub use host::{FileAttributes, FileFlags, FilesError, Host, Level};
pub use invoke::{Argument, InvokeError, Prepared, Value};
pub use notifications::{BusError, Notification, Observation};
pub use plugin::{
    AppStatePlugin, LaunchPlugin, MemoryPlugin, OpenUrlPlugin, Plugin, ProtectedDataPlugin, RemoteNotificationsPlugin,
    SavedStatePlugin, TerminationPlugin, UserActivityPlugin,
};
