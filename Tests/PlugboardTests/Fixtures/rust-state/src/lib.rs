//! `com.example.rust-state`, version 1.0: counts the URLs it opened over every run. Its state
//! is the text "count N"; `restore_state` logs "restored count N (saved by VERSION)", each
//! `open_url` logs "count N".

use plugboard::*;
use std::sync::atomic::{AtomicI64, Ordering};

struct Counter {
    host: Host,
    count: AtomicI64,
}

impl Plugin for Counter {
    const ID: &'static str = "com.example.rust-state";
    const VERSION: &'static str = "1.0";

    fn new(host: Host) -> Result<Self, String> {
        Ok(Counter { host, count: AtomicI64::new(0) })
    }
}

impl OpenUrlPlugin for Counter {
    fn open_url(&self, _url: &str, _options_json: &str) -> bool {
        let count = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        self.host.log(Level::Info, &format!("count {count}"));
        true
    }
}

impl SavedStatePlugin for Counter {
    fn save_state(&self) -> Option<Vec<u8>> {
        Some(format!("count {}", self.count.load(Ordering::Relaxed)).into_bytes())
    }

    fn restore_state(&self, state: &[u8], saved_version: &str) -> bool {
        let Some(count) = std::str::from_utf8(state).ok().and_then(|text| text.strip_prefix("count "))
            .and_then(|number| number.parse::<i64>().ok()) else { return false };
        self.count.store(count, Ordering::Relaxed);
        self.host.log(Level::Info, &format!("restored count {count} (saved by {saved_version})"));
        true
    }
}

export_plugins! {
    Counter => [OpenUrlPlugin, SavedStatePlugin],
}
