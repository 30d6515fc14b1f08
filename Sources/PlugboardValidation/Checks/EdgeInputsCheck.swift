import Plugboard

/// The `edge-inputs` check: edge inputs, each delivered through the host's events to every plugin
/// that takes part in the event. The host passes plugins UTF-8 only, so the text beyond ASCII is
/// what a plugin may meet within UTF-8.
enum EdgeInputsCheck {
    /// The size of the long URL's path.
    static let longURLPathSize = 1 << 20
    /// How deep the nested JSON options are: arrays in arrays.
    static let nestingDepth = 100_000

    /// The check.
    static let check = ValidationCheck(
        name: "edge-inputs",
        description: "Callbacks survive edge inputs: empty and \(longURLPathSize.bytesText) URLs, a NUL inside a URL, text beyond ASCII, "
            + "empty, invalid and deeply nested JSON (\(nestingDepth) levels), a zero-length device token.") { subject in
        subject.withLoaded { loaded in
            let host = loaded.host
            let nested = String(repeating: "[", count: nestingDepth) + String(repeating: "]", count: nestingDepth)
            let longURL = "https://example.com/" + String(repeating: "a", count: longURLPathSize)
            // U+FFFD, a combining mark with no letter before it, a character outside the Basic
            // Multilingual Plane, a noncharacter.
            let beyondASCII = "\u{FFFD} \u{301} \u{1F600} \u{FFFF}"
            let inputs: [(String, () -> [PluginFailure])] = [
                ("will_finish_launching with empty options", { host.willFinishLaunching(options: "").failures }),
                ("did_finish_launching with deeply nested options", { host.didFinishLaunching(options: nested).failures }),
                ("open_url with an empty URL", { host.open(url: "").failures }),
                ("open_url with a \(longURLPathSize.bytesText) URL", { host.open(url: longURL).failures }),
                ("open_url with invalid JSON options", { host.open(url: "https://example.com", options: "{").failures }),
                ("open_url with deeply nested options", { host.open(url: "https://example.com", options: nested).failures }),
                // A C plugin must go by the length: strlen stops at the NUL.
                ("open_url with a NUL inside the URL", { host.open(url: "https://example.com/a\u{0}b").failures }),
                ("open_url with a URL beyond ASCII", { host.open(url: "https://example.com/" + beyondASCII).failures }),
                ("open_url with options beyond ASCII", { host.open(url: "https://example.com/", options: beyondASCII).failures }),
                ("continue_user_activity with an empty type and invalid JSON", {
                    host.continueUserActivity(type: "", userInfo: "not json").failures }),
                ("continue_user_activity with a type and user info beyond ASCII", {
                    host.continueUserActivity(type: beyondASCII, userInfo: beyondASCII).failures }),
                ("did_register_for_remote_notifications with a zero-length token", {
                    host.didRegisterForRemoteNotifications(deviceToken: []).failures }),
            ]
            for (input, deliver) in inputs {
                if let failure = deliver().first { return (loaded.failureStatus, "\(input): \(failure.message)") }
            }
            return (.pass, "\(inputs.count) edge inputs answered")
        }
    }
}
