import Plugboard

/// The `edge-inputs` check: edge inputs, each delivered to every plugin that takes part in the
/// event: through the host's String events, and as bytes that are not UTF-8, which only the
/// worker channel carries (``WorkerHarness/sendToEveryPlugin(_:)``).
enum EdgeInputsCheck {
    /// The size of the long URL's path.
    static let longURLPathSize = 1 << 20
    /// How deep the nested JSON options are: arrays in arrays.
    static let nestingDepth = 100_000

    /// The check.
    static let check = ValidationCheck(
        name: "edge-inputs",
        description: "Callbacks survive edge inputs: empty and \(longURLPathSize.bytesText) URLs, text that is not UTF-8, "
            + "empty, invalid and deeply nested JSON (\(nestingDepth) levels), a zero-length device token.") { subject in
        subject.withLoaded { loaded in
            let host = loaded.host
            let harness = loaded.harness
            let nested = String(repeating: "[", count: nestingDepth) + String(repeating: "]", count: nestingDepth)
            let longURL = "https://example.com/" + String(repeating: "a", count: longURLPathSize)
            // A stray continuation byte, a truncated sequence, an encoded surrogate, a byte never in UTF-8.
            let notUTF8 = EventText(bytes: [0x80, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0xFF])
            let url = EventText(bytes: Array("https://example.com/".utf8) + notUTF8.bytes)
            let inputs: [(String, () -> [PluginFailure])] = [
                ("will_finish_launching with empty options", { host.willFinishLaunching(options: "").failures }),
                ("did_finish_launching with deeply nested options", { host.didFinishLaunching(options: nested).failures }),
                ("open_url with an empty URL", { host.open(url: "").failures }),
                ("open_url with a \(longURLPathSize.bytesText) URL", { host.open(url: longURL).failures }),
                ("open_url with invalid JSON options", { host.open(url: "https://example.com", options: "{").failures }),
                ("open_url with deeply nested options", { host.open(url: "https://example.com", options: nested).failures }),
                ("open_url with a URL that is not UTF-8", {
                    harness.sendToEveryPlugin(.openURL(url: url, options: "{}")) }),
                ("open_url with options that are not UTF-8", {
                    harness.sendToEveryPlugin(.openURL(url: "https://example.com/", options: notUTF8)) }),
                ("continue_user_activity with an empty type and invalid JSON", {
                    host.continueUserActivity(type: "", userInfo: "not json").failures }),
                ("continue_user_activity with a type and user info that are not UTF-8", {
                    harness.sendToEveryPlugin(.continueUserActivity(type: notUTF8, userInfo: notUTF8)) }),
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
