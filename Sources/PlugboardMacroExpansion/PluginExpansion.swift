import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The expansion of `@Plugin` (the compiler plugin's `PluginMacro` forwards to it): gives a plugin
/// type C entries of its own (`PluginEntryProviding`), written in the plugin's module where the type
/// is concrete, so that each slot calls the type's method inlined. A C function pointer cannot be
/// made in generic code, so the SDK alone can only offer entries shared by every type, which reach
/// the plugin through a protocol witness.
///
/// Every slot is written, whatever the type conforms to: each calls a `PluginEntries` function
/// whose overloads the compiler picks by the type's conformances that the module sees (the others
/// reach the plugin as the shared entries do). The entries are public whatever the type's access
/// (the compiler limits them to it), so that a type made public by its context has them public.
public struct PluginExpansion: ExtensionMacro {
    /// The extension that adds `PluginEntryProviding` and the type's `pluginEntries`.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard !protocols.isEmpty else { return [] }
        let name = type.trimmedDescription
        guard declaration.is(StructDeclSyntax.self) || declaration.is(ClassDeclSyntax.self) || declaration.is(EnumDeclSyntax.self) else {
            throw PluginMacroError("@Plugin applies to a struct, class or enum that conforms to ApplicationPlugin")
        }
        let enclosing = context.lexicalContext.compactMap { $0.asProtocol(WithGenericParametersSyntax.self)?.genericParameterClause }
        if let generic = declaration.asProtocol(WithGenericParametersSyntax.self)?.genericParameterClause ?? enclosing.first {
            throw PluginMacroError("@Plugin cannot give \(name), generic in \(generic.trimmedDescription), entries of its own "
                                   + "(a C function cannot be generic); remove it, and the SDK's shared entries serve the type")
        }
        let entries = "PlugboardSDK.PluginEntries"
        func slot(_ field: String, _ function: String, arguments: Int) -> String {
            let values = (0..<arguments).map { "$\($0)" }.joined(separator: ", ")
            return "\(field): { \(entries).\(function)(\(name).self, \(values)) }"
        }
        func record(_ label: String, _ slots: [String]) -> String {
            "\(label): .init(struct_size: 0, \(slots.joined(separator: ", ")))"
        }
        let records = [
            record("launch", [slot("will_finish_launching", "willFinishLaunching", arguments: 3),
                              slot("did_finish_launching", "didFinishLaunching", arguments: 3)]),
            record("openURL", [slot("open_url", "openURL", arguments: 5)]),
            record("userActivity", [slot("continue_user_activity", "continueUserActivity", arguments: 5)]),
            record("remoteNotifications", [slot("did_register", "didRegister", arguments: 3),
                                           slot("did_fail_to_register", "didFailToRegister", arguments: 3),
                                           slot("did_receive_remote_notification", "didReceive", arguments: 4)]),
            record("memory", [slot("did_receive_memory_warning", "didReceiveMemoryWarning", arguments: 1)]),
            record("protectedData", [slot("will_become_unavailable", "protectedDataWillBecomeUnavailable", arguments: 1),
                                     slot("did_become_available", "protectedDataDidBecomeAvailable", arguments: 1)]),
            record("appState", [slot("did_become_active", "didBecomeActive", arguments: 1),
                                slot("will_resign_active", "willResignActive", arguments: 1),
                                slot("did_enter_background", "didEnterBackground", arguments: 1),
                                slot("will_enter_foreground", "willEnterForeground", arguments: 1)]),
            record("termination", [slot("will_terminate", "willTerminate", arguments: 1)]),
        ]
        let extensionDecl = try ExtensionDeclSyntax("""
            extension \(raw: name): PlugboardSDK.PluginEntryProviding {
                /// The type's own C entries, written by `@Plugin`.
                public static let pluginEntries = \(raw: entries)(
                    of: \(raw: name).self,
                    \(raw: records.joined(separator: ",\n")))
            }
            """)
        return [extensionDecl]
    }
}

/// Why `@Plugin` cannot expand: the compiler shows it at the attribute.
struct PluginMacroError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
