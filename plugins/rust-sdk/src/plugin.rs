//! The `Plugin` trait (who a plugin is) and one trait per concern (what it takes part in).
//!
//! Every concern method has a default that answers like a NULL slot in C would: implement
//! only the events you care about. Callbacks take `&self` and run on the host's dispatch
//! thread, but a type must be `Sync` (keep state in atomics or a `Mutex`): a `Host` or a
//! `FetchCompletion` may take work to other threads. Strings the host passes are UTF-8
//! (the host validates each once, for every plugin); an event's texts arrive as `&str` without a
//! check.

use crate::completion::{FetchCompletion, FetchResult};
use crate::host::Host;

/// Who a plugin is: its descriptor's id, name, version and priority, and how it is made.
pub trait Plugin: Sized + Send + Sync + 'static {
    /// Reverse-DNS id, unique in the process, e.g. `"com.example.deeplinks"`.
    const ID: &'static str;
    /// Human-readable name; `""` shows the id.
    const NAME: &'static str = "";
    /// The plugin's own version.
    const VERSION: &'static str = "0";
    /// Order of dispatch: higher first; equal priorities go by id.
    const PRIORITY: i32 = 0;

    /// Makes the plugin while the library registers its plugins. `host` logs on this
    /// plugin's behalf; keep it for later. An `Err` is logged, and the library is not used.
    fn new(host: Host) -> Result<Self, String>;
}

/// Launch events. Every plugin is asked; a `false` vetoes the launch.
pub trait LaunchPlugin: Plugin {
    /// The application is about to finish launching; `options_json` is a JSON object.
    fn will_finish_launching(&self, options_json: &str) -> bool {
        let _ = options_json;
        true
    }
    /// The application has finished launching; same meaning of the answer.
    fn did_finish_launching(&self, options_json: &str) -> bool {
        let _ = options_json;
        true
    }
}

/// URL opening: the first plugin (by priority) that answers `true` handles the URL.
pub trait OpenUrlPlugin: Plugin {
    /// Opens `url` (`options_json` is a JSON object); `true` if handled.
    fn open_url(&self, url: &str, options_json: &str) -> bool;
}

/// User activity continuation: the first plugin that answers `true` handles it.
pub trait UserActivityPlugin: Plugin {
    /// Continues an activity of the reverse-DNS type `activity_type`; `true` if handled.
    fn continue_user_activity(&self, activity_type: &str, user_info_json: &str) -> bool;
}

/// Remote (push) notifications.
pub trait RemoteNotificationsPlugin: Plugin {
    /// The device registered; `token` is opaque bytes.
    fn did_register(&self, token: &[u8]) {
        let _ = token;
    }
    /// Registration failed, for the human-readable reason `error`.
    fn did_fail_to_register(&self, error: &str) {
        let _ = error;
    }
    /// A notification arrived. Answer through `completion`, now or later, from any thread.
    fn did_receive_remote_notification(&self, user_info_json: &str, completion: FetchCompletion) {
        let _ = user_info_json;
        completion.complete(FetchResult::NoData);
    }
}

/// Memory pressure, broadcast to every plugin.
pub trait MemoryPlugin: Plugin {
    /// The system is short of memory: drop caches and anything you can rebuild.
    fn did_receive_memory_warning(&self);
}

/// Protected data, broadcast to every plugin.
pub trait ProtectedDataPlugin: Plugin {
    /// Protected files are about to become unreadable.
    fn will_become_unavailable(&self) {}
    /// Protected files are readable again.
    fn did_become_available(&self) {}
}

/// Application state changes, broadcast to every plugin.
pub trait AppStatePlugin: Plugin {
    /// The application became active.
    fn did_become_active(&self) {}
    /// The application is about to become inactive.
    fn will_resign_active(&self) {}
    /// The application moved to the background.
    fn did_enter_background(&self) {}
    /// The application is about to come back to the foreground.
    fn will_enter_foreground(&self) {}
}

/// Termination, broadcast in reverse priority order.
pub trait TerminationPlugin: Plugin {
    /// The application is about to terminate: save state now.
    fn will_terminate(&self);
}

/// Saved state (ABI 1.3): the host keeps the bytes `save_state` gives after will-terminate and
/// gives them back to `restore_state` before will-finish-launching of the next run.
pub trait SavedStatePlugin: Plugin {
    /// The state to keep (at most `PB_SAVED_STATE_MAX_SIZE` bytes), or `None` to save nothing
    /// this time (the previous state is kept).
    fn save_state(&self) -> Option<Vec<u8>>;
    /// The state a previous run saved, by the plugin's version `saved_version`; `false` refuses
    /// it (the plugin starts without state). Not called when there is no valid state.
    fn restore_state(&self, state: &[u8], saved_version: &str) -> bool;
}
