import PlugboardMacroExpansion
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Plugin`'s expansion: the extension that gives a plugin type C entries of its own, with the
/// type's access, and the types it refuses. (The example plugin and the benchmark's Swift plugin are
/// built with it and run through the real host.)
@Suite struct PluginMacroTests {
    static let specs = ["Plugin": MacroSpec(type: PluginExpansion.self, conformances: ["PluginEntryProviding"])]

    /// What `@Plugin` adds to a class `Counter`: a slot for every event of every concern, each calling
    /// the `PluginEntries` function of its slot with the type; public, whatever the type's access.
    static let counterEntries = """
        extension Counter: PlugboardSDK.PluginEntryProviding {
            /// The type's own C entries, written by `@Plugin`.
            public static let pluginEntries = PlugboardSDK.PluginEntries(
                of: Counter.self,
                launch: .init(struct_size: 0, will_finish_launching: {
                        PlugboardSDK.PluginEntries.willFinishLaunching(Counter.self, $0, $1, $2)
                    }, did_finish_launching: {
                        PlugboardSDK.PluginEntries.didFinishLaunching(Counter.self, $0, $1, $2)
                    }),
                openURL: .init(struct_size: 0, open_url: {
                        PlugboardSDK.PluginEntries.openURL(Counter.self, $0, $1, $2, $3, $4)
                    }),
                userActivity: .init(struct_size: 0, continue_user_activity: {
                        PlugboardSDK.PluginEntries.continueUserActivity(Counter.self, $0, $1, $2, $3, $4)
                    }),
                remoteNotifications: .init(struct_size: 0, did_register: {
                        PlugboardSDK.PluginEntries.didRegister(Counter.self, $0, $1, $2)
                    }, did_fail_to_register: {
                        PlugboardSDK.PluginEntries.didFailToRegister(Counter.self, $0, $1, $2)
                    }, did_receive_remote_notification: {
                        PlugboardSDK.PluginEntries.didReceive(Counter.self, $0, $1, $2, $3)
                    }),
                memory: .init(struct_size: 0, did_receive_memory_warning: {
                        PlugboardSDK.PluginEntries.didReceiveMemoryWarning(Counter.self, $0)
                    }),
                protectedData: .init(struct_size: 0, will_become_unavailable: {
                        PlugboardSDK.PluginEntries.protectedDataWillBecomeUnavailable(Counter.self, $0)
                    }, did_become_available: {
                        PlugboardSDK.PluginEntries.protectedDataDidBecomeAvailable(Counter.self, $0)
                    }),
                appState: .init(struct_size: 0, did_become_active: {
                        PlugboardSDK.PluginEntries.didBecomeActive(Counter.self, $0)
                    }, will_resign_active: {
                        PlugboardSDK.PluginEntries.willResignActive(Counter.self, $0)
                    }, did_enter_background: {
                        PlugboardSDK.PluginEntries.didEnterBackground(Counter.self, $0)
                    }, will_enter_foreground: {
                        PlugboardSDK.PluginEntries.willEnterForeground(Counter.self, $0)
                    }),
                termination: .init(struct_size: 0, will_terminate: {
                        PlugboardSDK.PluginEntries.willTerminate(Counter.self, $0)
                    }))
        }
        """

    private func expect(_ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [],
                        sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: Self.specs) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test func aTypeGetsASlotForEveryEventOfEveryConcern() {
        expect("""
            @Plugin
            final class Counter: MemoryWarningPlugin {}
            """, expands: "final class Counter: MemoryWarningPlugin {}\n\n" + Self.counterEntries)
    }

    @Test(arguments: ["public", "open", "package", "private", "fileprivate"])
    func theEntriesArePublicWhateverTheTypesAccess(modifier: String) {
        expect("""
            @Plugin
            \(modifier) final class Counter: MemoryWarningPlugin {}
            """, expands: "\(modifier) final class Counter: MemoryWarningPlugin {}\n\n" + Self.counterEntries)
    }

    @Test func aGenericTypeIsRefusedWithTheReason() {
        expect("""
            @Plugin
            struct Box<Value>: OpenURLPlugin {}
            """, expands: "struct Box<Value>: OpenURLPlugin {}", diagnostics: [
                DiagnosticSpec(message: "@Plugin cannot give Box, generic in <Value>, entries of its own (a C function cannot be "
                               + "generic); remove it, and the SDK's shared entries serve the type", line: 1, column: 1),
            ])
    }

    @Test func aTypeNestedInAGenericTypeIsRefusedWithTheReason() {
        expect("""
            struct Outer<Value> {
                @Plugin
                struct Inner: OpenURLPlugin {}
            }
            """, expands: """
            struct Outer<Value> {
                struct Inner: OpenURLPlugin {}
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@Plugin cannot give Outer.Inner, generic in <Value>, entries of its own (a C function cannot be "
                               + "generic); remove it, and the SDK's shared entries serve the type", line: 2, column: 5),
            ])
    }

    @Test func aProtocolIsRefused() {
        expect("""
            @Plugin
            protocol Greeting: OpenURLPlugin {}
            """, expands: "protocol Greeting: OpenURLPlugin {}", diagnostics: [
                DiagnosticSpec(message: "@Plugin applies to a struct, class or enum that conforms to ApplicationPlugin", line: 1, column: 1),
            ])
    }
}
