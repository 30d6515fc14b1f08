//! `com.example.rust-panics` panics in every callback of every concern, with the message
//! `boom in <callback>`. The launch callbacks panic only when the launch options name
//! them (`{"panic":"will_finish_launching"}`), since a launch veto ends the run's events.
//! `open_url` panics with a literal (a `&str` payload), the others with a `String`.
//! With `RUST_PANICS_IN_NEW` in the environment, `Plugin::new` panics instead.

use plugboard::*;

struct Panics;

impl Plugin for Panics {
    const ID: &'static str = "com.example.rust-panics";

    fn new(_host: Host) -> Result<Self, String> {
        if std::env::var_os("RUST_PANICS_IN_NEW").is_some() { boom("new") }
        Ok(Panics)
    }
}

fn boom(callback: &str) -> ! {
    panic!("boom in {callback}")
}

impl LaunchPlugin for Panics {
    fn will_finish_launching(&self, options_json: &str) -> bool {
        if options_json.contains("will_finish_launching") { boom("will_finish_launching") }
        true
    }
    fn did_finish_launching(&self, options_json: &str) -> bool {
        if options_json.contains("did_finish_launching") { boom("did_finish_launching") }
        true
    }
}

impl OpenUrlPlugin for Panics {
    fn open_url(&self, _url: &str, _options_json: &str) -> bool {
        panic!("boom in open_url")
    }
}

impl UserActivityPlugin for Panics {
    fn continue_user_activity(&self, _activity_type: &str, _user_info_json: &str) -> bool {
        boom("continue_user_activity")
    }
}

impl RemoteNotificationsPlugin for Panics {
    fn did_register(&self, _token: &[u8]) {
        boom("did_register")
    }
    fn did_fail_to_register(&self, _error: &str) {
        boom("did_fail_to_register")
    }
    fn did_receive_remote_notification(&self, _user_info_json: &str, _completion: FetchCompletion) {
        boom("did_receive_remote_notification")
    }
}

impl MemoryPlugin for Panics {
    fn did_receive_memory_warning(&self) {
        boom("did_receive_memory_warning")
    }
}

impl ProtectedDataPlugin for Panics {
    fn will_become_unavailable(&self) {
        boom("will_become_unavailable")
    }
    fn did_become_available(&self) {
        boom("did_become_available")
    }
}

impl AppStatePlugin for Panics {
    fn did_become_active(&self) {
        boom("did_become_active")
    }
    fn will_resign_active(&self) {
        boom("will_resign_active")
    }
    fn did_enter_background(&self) {
        boom("did_enter_background")
    }
    fn will_enter_foreground(&self) {
        boom("will_enter_foreground")
    }
}

impl TerminationPlugin for Panics {
    fn will_terminate(&self) {
        boom("will_terminate")
    }
}

export_plugins! {
    Panics => [LaunchPlugin, OpenUrlPlugin, UserActivityPlugin, RemoteNotificationsPlugin, MemoryPlugin,
               ProtectedDataPlugin, AppStatePlugin, TerminationPlugin],
}
