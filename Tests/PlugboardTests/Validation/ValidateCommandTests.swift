import Foundation
import Testing

/// `plugboard validate`: the examples pass, each defect of a corpus is named by its check,
/// and the filters, the JSON shape and the exit codes are as documented.
@Suite struct ValidateCommandTests {
    /// The results of a `validate --json` document, by library file name, then by check name.
    private func results(_ result: ProcessResult) throws -> [String: [String: [String: Any]]] {
        let document = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        let libraries = try #require(document as? [[String: Any]], "not a JSON array:\n\(result.output)\n\(result.errorOutput)")
        var byLibrary: [String: [String: [String: Any]]] = [:]
        for library in libraries {
            let path = try #require(library.string("library"))
            let checks = try #require(library.objects("checks"))
            for check in checks {
                #expect(check["milliseconds"] is NSNumber && check.string("reason") != nil, "\(check)")
                byLibrary[URL(fileURLWithPath: path).lastPathComponent, default: [:]][try #require(check.string("check"))] = check
            }
        }
        return byLibrary
    }

    /// Validates `libraries` and expects each to run all 13 checks, none failed or crashed; the
    /// checks by library file name.
    @discardableResult
    private func expectEveryCheckPasses(_ libraries: [String]) throws -> [String: [String: [String: Any]]] {
        let result = try CLI.run(["validate", "--json"] + libraries)
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let found = try results(result)
        #expect(found.count == libraries.count)
        for (library, checks) in found {
            #expect(checks.count == 13, "\(library)")
            for (name, check) in checks {
                #expect(["pass", "warn", "skipped"].contains(check.string("status")), "\(library) \(name): \(check)")
            }
        }
        return found
    }

    @Test func everyExamplePluginPasses() throws {
        let work = try Workspace("validate-examples")
        defer { work.remove() }
        var libraries: [String] = []
        for (name, source) in [("deeplink-router", "deeplink_router.c"), ("notification-logger", "notification_logger.c"),
                               ("app-lifecycle-pair", "app_lifecycle_pair.c"), ("url-history", "url_history.c"),
                               ("theme-switcher", "theme_switcher.cpp")] {
            let path = TestPaths.packageRoot.appendingPathComponent("plugins/\(name)/\(source)").path
            libraries.append(try PluginCompiler.compile(path, to: work.plugins + "/\(name).so",
                                                        cplusplus: source.hasSuffix(".cpp")))
        }
        try expectEveryCheckPasses(libraries)
    }

    @Test func theRustAndSwiftExamplesPass() throws {
        let work = try Workspace("validate-sdk-examples")
        defer { work.remove() }
        let libraries = [try Cargo.buildPlugin("plugins/rust-example", in: work.root, into: work.plugins),
                         try SwiftPackageLibraries.built(SwiftPackageLibraries.example)]
        let found = try expectEveryCheckPasses(libraries)
        // The Swift library's own symbols are exported: the warning says so, not to hide them as in C.
        let swiftExports = found[URL(fileURLWithPath: libraries[1]).lastPathComponent]?["exports"]
        #expect(swiftExports?.string("reason")?.contains("expected for a Swift plugin") == true, "\(swiftExports ?? [:])")
    }

    @Test func eachDefectIsNamedByItsCheck() throws {
        let work = try Workspace("validate-corpus")
        defer { work.remove() }
        func hostile(_ definitions: String...) -> (String) throws -> String {
            { name in try PluginCompiler.hostile(name, in: work.plugins, definitions) }
        }
        func configurable(_ definitions: String...) -> (String) throws -> String {
            { name in try work.plugin(name, definitions) }
        }
        func linked(_ flags: String...) -> (String) throws -> String {
            { name in try PluginCompiler.compile(TestPaths.fixtures + "/hostile_plugin.c", to: work.plugins + "/" + name, flags: flags) }
        }
        func needingAMissingLibrary(_ name: String) throws -> String {
            try work.root.write("needed.c", "int needed_function(void) { return 1; }\n")
            try PluginCompiler.compile(work.root.file("needed.c"), to: work.root.file("libvalidate-needed.so"))
            let library = try linked("-Wl,--no-as-needed", "-L" + work.root.path, "-lvalidate-needed")(name)
            try FileManager.default.removeItem(atPath: work.root.file("libvalidate-needed.so"))
            return library
        }
        // library, how it is built, the check that must name its defect, the status, words of the reason.
        let corpus: [(String, (String) throws -> String, String, String, String)] = [
            ("crash-in-open-url.so", hostile("SEGV_AT=AT_OPEN_URL"), "edge-inputs", "crashed", "crashed with SIGSEGV in open_url"),
            ("hang-in-open-url.so", hostile("SPIN_AT=AT_OPEN_URL"), "edge-inputs", "fail", "did not return from open_url"),
            ("crash-in-init.so", hostile("SEGV_AT=AT_INIT"), "loads", "crashed", "crashed with SIGSEGV in init"),
            ("init-fails.so", hostile("FAIL_AT=AT_INIT"), "loads", "fail", "init"),
            ("prints.so", hostile("PRINT_AT=AT_WILL_FINISH"), "quiet-stdout", "fail", "standard output"),
            ("crash-in-deinit.so", hostile("SEGV_AT=AT_DEINIT"), "second-load", "crashed", "crashed with SIGSEGV in deinit"),
            ("id-not-reverse-dns.so", configurable("FIX_ID=\"nodots\""), "plugin-ids", "fail", "'nodots': the id is not reverse-DNS"),
            ("stray-export.so", linked("-Wl,--defsym=stray_export=plugboard_entry"), "exports", "warn", "stray_export"),
            ("needs-a-missing-library.so", needingAMissingLibrary, "loads", "fail", "libvalidate-needed.so"),
            // A text file: its exported symbols are not read from bytes that are not ELF.
            ("text-file.so", { name in
                try "int main(void) { return 0; }\n".write(toFile: work.plugins + "/" + name, atomically: false, encoding: .utf8)
                return work.plugins + "/" + name
            }, "exports", "skipped", "not a shared library: the file is text, not ELF"),
            // A FIFO: nothing waits for a writer to open its other end.
            ("fifo.so", { name in
                try #require(mkfifo(work.plugins + "/" + name, 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")
                return work.plugins + "/" + name
            }, "exports", "skipped", "not a regular file: a FIFO"),
            ("never-completes.so", configurable("FIX_ID=\"a.b\"", "FIX_FETCH=PB_FETCH_NEW_DATA", "FIX_FETCH_MODE=1"),
             "remote-notification", "fail", "a.b did not answer the completion within 2 s"),
            ("completes-twice.so", configurable("FIX_ID=\"a.b\"", "FIX_FETCH=PB_FETCH_NEW_DATA", "FIX_FETCH_MODE=2"),
             "remote-notification", "fail", "already answered"),
            ("id-twice.so", configurable("FIX_ID=\"a.b\"", "FIX_SECOND_ID=\"a.b\""), "plugin-ids", "fail",
             "duplicate plugin id 'a.b'"),
            ("init-only-once.so", hostile("ONCE_AT=AT_INIT"), "second-load", "fail",
             "init after deinit, in the same process, failed: init: init returned false: already initialized"),
            ("register-only-once.so", hostile("ONCE_AT=AT_REGISTER"), "second-load", "fail", "register_plugins returned false"),
            ("bad-function-declarations.so", { name in
                try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: work.plugins + "/" + name) },
             "functions", "fail", "plugin com.example.badfunctions: function \"unknown_type\" refused: signature \"double (int)\": column 9: unknown type \"int\""),
            ("aborts-on-a-nul-in-a-url.so", hostile("ABORT_ON_INNER_NUL_AT=AT_OPEN_URL"), "edge-inputs", "crashed",
             "open_url with a NUL inside the URL: com.example.hostile crashed with SIGABRT in open_url"),
            ("thread-after-deinit.so", hostile("STRAY_THREAD_AT=AT_INIT"), "service-threads", "fail",
             "after deinit returned (each ignored): deinit must stop every thread that calls the host"),
            ("saves-null-data.so", hostile("SAVED_STATE", "NULL_STATE_AT=AT_SAVE_STATE"), "saved-state", "fail",
             "the first save: com.example.hostile: save_state returned NULL data with a size of 100"),
            ("hangs-in-save-state.so", hostile("SAVED_STATE", "SPIN_AT=AT_SAVE_STATE"), "saved-state", "fail",
             "the first save: com.example.hostile did not return from save_state"),
            ("saves-too-much.so", hostile("SAVED_STATE", "HUGE_STATE_AT=AT_SAVE_STATE"), "saved-state", "fail",
             "the first save: com.example.hostile: save_state returned 16777217 bytes, over the limit"),
            ("trusts-its-saved-state.so", hostile("SAVED_STATE", "TRUSTING_RESTORE_AT=AT_RESTORE_STATE"), "saved-state",
             "crashed", "restoring an empty state: com.example.hostile crashed with SIGABRT in restore_state"),
            ("fragile-observer.so", hostile("OBSERVE_FRAGILE_AT=AT_WILL_FINISH"), "notifications", "crashed",
             "com.example.fragile with a 60 KiB object: com.example.hostile crashed with SIGABRT in notification observer"),
            ("bad-posts.so", hostile("BAD_BUS_CALLS_AT=AT_WILL_FINISH"), "notifications", "fail",
             "com.example.hostile: post: the notification name 'no dots here' is not valid"),
            // The refused post is the library's 16th refusal, whose log line carries the budget's note.
            ("bad-post-sixteenth.so", hostile("BAD_BUS_CALLS_AT=AT_WILL_FINISH", "BAD_STOPS_FIRST=15"), "notifications", "fail",
             "com.example.hostile: post: the notification name 'no dots here' is not valid"),
            // Not defects: a plugin that saves and restores its state, one that observes a name.
            ("remembers.so", hostile("SAVED_STATE"), "saved-state", "pass",
             "1 plugin(s) saved, restored their state and saved again"),
            ("observes.so", { name in
                try PluginCompiler.compile(TestPaths.fixtures + "/bus_plugin.c", to: work.plugins + "/" + name,
                                           flags: ["-DBUS_OBSERVE=\"com.example.news\""]) },
             "notifications", "pass", "1 observed name(s) survived 4 edge payloads each"),
            // Not a defect: a thread that logs until deinit joins it.
            ("thread-joined-in-deinit.so", hostile("THREAD_LOGS_AT=AT_INIT"), "service-threads", "pass",
             "from 1 other thread(s) answered; none after deinit"),
        ]
        var libraries = [try PluginCompiler.hostile("sound.so", in: work.plugins, [])]
        for (name, build, _, _, _) in corpus {
            libraries.append(try build(name))
        }
        let result = try CLI.run(["validate", "--json", "--call-timeout", "3"] + libraries)
        #expect(result.status == 1, "\(result.output)\n\(result.errorOutput)")
        let found = try results(result)
        for (name, check) in found["sound.so"] ?? [:] {
            #expect(["pass", "warn", "skipped"].contains(check.string("status")), "sound.so \(name): \(check)")
        }
        #expect(found["sound.so"]?["service-threads"]?.string("reason") == "no service call from another thread; none after deinit")
        #expect(found["sound.so"]?["second-load"]?.string("reason") == "init, register_plugins and deinit ran twice in one process")
        #expect(found["sound.so"]?["saved-state"]?.string("reason") == "no plugin takes part in saved state")
        #expect(found["sound.so"]?["notifications"]?.string("reason") == "no plugin observes or posts during launch")
        // The joined thread's first log and files call come before init returns: at least 2 calls, files served.
        let joined = found["thread-joined-in-deinit.so"]?["service-threads"]?.string("reason") ?? ""
        #expect(Int(joined.prefix { $0.isNumber }).map { $0 >= 2 } == true, "\(joined)")
        for (library, _, check, status, words) in corpus {
            let seen = found[library]?[check]
            #expect(seen?.string("status") == status, "\(library) \(check): \(seen.map { "\($0)" } ?? "missing")")
            #expect(seen?.string("reason")?.contains(words) == true, "\(library) \(check): \(seen.map { "\($0)" } ?? "missing")")
        }
    }

    @Test func filtersChooseTheChecksAndTheResultsShown() throws {
        let work = try Workspace("validate-filters")
        defer { work.remove() }
        let crashing = try PluginCompiler.hostile("crashing.so", in: work.plugins, ["SEGV_AT=AT_OPEN_URL"])

        let included = try results(try CLI.run(["validate", "--json", "--include", "edge-inputs", crashing]))
        #expect(included["crashing.so"].map { Array($0.keys) } == ["edge-inputs"])

        let excluded = try CLI.run(["validate", "--exclude", "edge-inputs", "--exclude", "service-threads",
                                    "--exclude", "quiet-stdout", "--exclude", "sandbox", crashing])
        #expect(excluded.status == 0, "\(excluded.output)\n\(excluded.errorOutput)")
        #expect(excluded.output.contains("pass    loads "), "\(excluded.output)")
        #expect(!excluded.output.contains("edge-inputs"), "\(excluded.output)")

        // With nothing to show, the human format says so under the library.
        let nothingFailed = try CLI.run(["validate", "--only-failed", "--include", "loads", "--include", "exports", crashing])
        #expect(nothingFailed.status == 0, "\(nothingFailed.output)\n\(nothingFailed.errorOutput)")
        #expect(nothingFailed.output.hasSuffix("crashing.so\n  no check failed or crashed (2 run)\n"), "\(nothingFailed.output)")

        let onlyFailed = try CLI.run(["validate", "--json", "--only-failed", crashing])
        #expect(onlyFailed.status == 1)
        let shown = try results(onlyFailed)["crashing.so"] ?? [:]
        #expect(Set(shown.keys) == ["edge-inputs", "service-threads", "quiet-stdout", "sandbox"], "\(shown)")
    }

    /// A folder stands for its `*.so` files, in the order a plugin folder is scanned, beside the
    /// files given; a folder with none is a usage error naming it.
    @Test func aFolderIsTheLibrariesInIt() throws {
        let work = try Workspace("validate-folder")
        defer { work.remove() }
        let second = try PluginCompiler.hostile("b.so", in: work.plugins, [])
        let first = try PluginCompiler.hostile("a.so", in: work.plugins, [#"HOSTILE_ID="com.example.first""#])
        try "not a library".write(toFile: work.plugins + "/notes.txt", atomically: true, encoding: .utf8)
        let alone = try PluginCompiler.hostile("alone.so", in: work.root.path, [#"HOSTILE_ID="com.example.alone""#])
        let result = try CLI.run(["validate", "--only-failed", "--include", "loads", alone, work.plugins])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(result.output.split(separator: "\n").filter { $0.hasPrefix("/") }.map(String.init) == [alone, first, second],
                "\(result.output)")

        let empty = work.root.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let none = try CLI.run(["validate", empty])
        #expect(none.status == 64, "\(none.output)\n\(none.errorOutput)")
        #expect(none.errorOutput.hasPrefix("Error: '\(empty)' holds no plugin library (*.so)"), "\(none.errorOutput)")
    }

    /// A library others may write is refused by the trust rule, as `run` refuses it, and the
    /// refusal's advice works: `--allow-insecure` loads it, with the warning.
    @Test func aWritableLibraryIsRefusedUnlessAllowedInsecure() throws {
        let workspace = try Workspace("validate-trust")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("writable.so", in: workspace.plugins, [])
        try #require(chmod(library, 0o666) == 0)
        let refused = try CLI.run(["validate", "--json", "--include", "loads", library])
        #expect(refused.status == 1, "\(refused.output)\n\(refused.errorOutput)")
        let reason = try #require(try results(refused)["writable.so"]?["loads"]?.string("reason"), "\(refused.output)")
        #expect(reason.contains("writable by group and others") && reason.contains("--allow-insecure"), "\(reason)")
        let allowed = try CLI.run(["validate", "--json", "--include", "loads", "--allow-insecure", library])
        #expect(allowed.status == 0, "\(allowed.output)\n\(allowed.errorOutput)")
        let loads = try results(allowed)["writable.so"]?["loads"]
        #expect(loads?.string("status") == "warn" && loads?.string("reason")?.hasPrefix("loaded although the plugin file is writable") == true,
                "\(allowed.output)")
    }

    /// A library whose code attempts what the default sandbox refuses (the escape corpus) fails
    /// the sandbox check, which names the operation and the grant that would allow it.
    @Test func aLibraryThatAttemptsWhatTheSandboxRefusesFailsTheSandboxCheck() throws {
        let workspace = try Workspace("validate-sandbox")
        defer { workspace.remove() }
        let library = workspace.plugins + "/libsandbox_escape.so"
        let folder = workspace.root.path
        _ = try PluginCompiler.compile(TestPaths.fixtures + "/sandbox_escape.c", to: library, flags: [
            "-DSECRET_PATH=\"\(folder)/secret\"", "-DWRITE_DIR=\"\(folder)\"", "-DTCP_PORT=9",
            "-DABSTRACT_NAME=\"plugboard-validate-\(getpid())\"", "-DUNIX_PATH=\"\(folder)/socket\"",
        ])
        let result = try CLI.run(["validate", "--json", "--include", "sandbox", library])
        #expect(result.status == 1, "\(result.output)\n\(result.errorOutput)")
        let check = try #require(try results(result)["libsandbox_escape.so"]?["sandbox"], "\(result.output)")
        #expect(check.string("status") == "fail", "\(check)")
        let reason = check.string("reason") ?? ""
        #expect(reason.contains(" tried to ") && reason.contains("grant") , "\(reason)")
    }

    @Test func anUnknownCheckIsAUsageErrorAndListNamesEveryCheck() throws {
        let unknown = try CLI.run(["validate", "--include", "no-such-check", "x.so"])
        #expect(unknown.status == 64)
        #expect(unknown.errorOutput.contains("there is no check named \"no-such-check\""), "\(unknown.errorOutput)")

        let list = try CLI.run(["validate", "--list"])
        #expect(list.status == 0)
        let names = list.output.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
        #expect(names == ["loads", "exports", "plugin-ids", "functions", "load-time", "second-load", "edge-inputs", "remote-notification",
                          "service-threads", "quiet-stdout", "saved-state", "notifications", "sandbox"], "\(list.output)")
    }
}
