extension LanguageTemplate {
    /// A Rust plugin on the `plugboard` crate: a cdylib `Cargo.toml` and `src/lib.rs`.
    static func rust(_ project: Scaffold) -> LanguageTemplate {
        let name = project.name.rawValue
        let type = project.name.typeName
        return LanguageTemplate(
            files: [
                ProjectFile(path: "Cargo.toml", text: #"""
                    [package]
                    name = "\#(name)"
                    version = "0.1.0"
                    edition = "2021"
                    publish = false

                    [lib]
                    # A C-compatible shared library, target/release/lib\#(project.name.crateName).so, exporting plugboard_entry.
                    crate-type = ["cdylib"]

                    [dependencies]
                    # The Plugboard Rust SDK, found by `plugboard new`: change this path if the SDK moves.
                    # It has no dependencies, so `cargo build --offline` needs no registry.
                    plugboard = { path = "\#(project.sdk)/plugins/rust-sdk" }

                    [profile.release]
                    # The SDK turns a panic into a logged, fail-closed answer with catch_unwind, which needs unwinding.
                    panic = "unwind"

                    """#),
                ProjectFile(path: "src/lib.rs", text: #"""
                    //! \#(name): a Plugboard plugin in Rust, made by `plugboard new`. It opens
                    //! `\#(project.name.scheme)://` links and logs at launch and at termination.

                    use plugboard::{Host, Level};

                    /// The plugin. Callbacks take `&self`: keep changing state in atomics or a `Mutex`.
                    struct \#(type) {
                        /// Logs for this plugin, from any thread.
                        host: Host,
                    }

                    /// Who the plugin is: the id is reverse-DNS and unique in the process.
                    impl plugboard::Plugin for \#(type) {
                        const ID: &'static str = "\#(project.id)";
                        const NAME: &'static str = "\#(name)";
                        const VERSION: &'static str = "0.1.0";

                        /// Called while the library registers its plugins; an `Err` refuses the library.
                        fn new(host: Host) -> Result<Self, String> {
                            Ok(\#(type) { host })
                        }
                    }

                    /// Launch is a vote: `false` would veto it.
                    impl plugboard::LaunchPlugin for \#(type) {
                        fn did_finish_launching(&self, _options_json: &str) -> bool {
                            self.host.log(Level::Info, "launched");
                            true
                        }
                    }

                    /// Asked for each URL until a plugin answers `true`.
                    impl plugboard::OpenUrlPlugin for \#(type) {
                        fn open_url(&self, url: &str, _options_json: &str) -> bool {
                            let Some(rest) = url.strip_prefix("\#(project.name.scheme)://") else { return false };
                            self.host.log(Level::Info, &format!("open {rest}"));
                            true
                        }
                    }

                    impl plugboard::TerminationPlugin for \#(type) {
                        fn will_terminate(&self) {
                            self.host.log(Level::Info, "terminating");
                        }
                    }

                    // Exports plugboard_entry and registers the plugin with the concerns listed.
                    plugboard::export_plugins! {
                        \#(type) => [LaunchPlugin, OpenUrlPlugin, TerminationPlugin],
                    }

                    """#),
            ],
            build: "cargo build --offline --release", libraryDirectory: "target/release",
            libraryFile: "lib\(project.name.crateName).so",
            sdkSetting: "the `plugboard = { path = … }` line of Cargo.toml", ignored: ["/target/"])
    }
}
