//! A Plugboard plugin in Rust: it opens `rustapp://` links and, at termination, logs how
//! many it opened; the function `opened` answers the same count when called by name. Build it with `cargo build --offline --release`, then run
//! `plugboard run --plugin-dir target/release --open-url rustapp://item/7`.

use plugboard::{Host, Level, OpenUrlPlugin, Plugin, TerminationPlugin};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The plugin's state. Callbacks get `&self`, so what changes lives in an atomic (or a
/// `Mutex`): the SDK requires `Sync`, because a `Host` may be used from any thread.
struct RustLinks {
    /// Speaks for this plugin: log lines are attributed to its id.
    host: Host,
    /// How many links this plugin handled.
    opened: AtomicUsize,
}

/// Who the plugin is. The id is reverse-DNS and unique in the process.
impl Plugin for RustLinks {
    const ID: &'static str = "com.example.rust-links";
    const NAME: &'static str = "Rust links";
    const VERSION: &'static str = "1.0.0";

    /// Called once while the library registers its plugins; an `Err` refuses the library.
    fn new(host: Host) -> Result<Self, String> {
        Ok(RustLinks { host, opened: AtomicUsize::new(0) })
    }
}

/// URL opening: the first plugin that answers `true` handles the link.
impl OpenUrlPlugin for RustLinks {
    fn open_url(&self, url: &str, _options_json: &str) -> bool {
        let Some(path) = url.strip_prefix("rustapp://") else { return false };
        self.opened.fetch_add(1, Ordering::Relaxed);
        self.host.log(Level::Info, &format!("open {path}"));
        true
    }
}

/// Termination: the last chance to save state.
impl TerminationPlugin for RustLinks {
    fn will_terminate(&self) {
        let opened = self.opened.load(Ordering::Relaxed);
        self.host.log(Level::Info, &format!("opened {opened} link(s)"));
    }
}

impl RustLinks {
    /// How many links this plugin opened: the function `opened` below.
    fn opened(&self) -> u64 {
        self.opened.load(Ordering::Relaxed) as u64
    }
}

// Functions the host and other plugins call by name (`plugboard call --isolation none --plugin-dir DIR com.example.rust-links.opened`):
// a method of the plugin, its Rust signature (from which "uint64 ()" is derived) and a doc string.
plugboard::functions! {
    RustLinks {
        opened: fn() -> u64, "How many links this plugin opened";
    }
}

// Exports `plugboard_entry` and lists each plugin with the concerns it takes part in.
// A concern not listed here is not registered, even if the type implements its trait.
plugboard::export_plugins! {
    RustLinks => [OpenUrlPlugin, TerminationPlugin, FunctionsPlugin],
}
