import PlugboardMacroExpansion
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Plugin`, as the compiler finds it (this module's `PluginMacro`): the expansion is the library
/// PlugboardMacroExpansion's, which the tests link without the package being built a second time
/// for the compiler's host (as a test target that depends on a macro target has it).
public struct PluginMacro: ExtensionMacro {
    /// ``PluginExpansion``'s extension.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try PluginExpansion.expansion(of: node, attachedTo: declaration, providingExtensionsOf: type,
                                      conformingTo: protocols, in: context)
    }
}

/// The compiler plugin that provides `@Plugin`.
@main
struct PlugboardMacroPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [PluginMacro.self]
}
