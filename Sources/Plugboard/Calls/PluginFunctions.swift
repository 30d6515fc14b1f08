/// The functions one C plugin declared: those the host accepted, in declaration
/// order and by name, and those it refused, each with its reason.
struct PluginFunctions: Sendable {
    /// A plugin that declares no function.
    static let none = PluginFunctions(accepted: [], refused: [])

    /// The accepted functions, in declaration order.
    let accepted: [PluginFunction]
    /// The refused declarations, in declaration order.
    let refused: [FunctionRefusal]
    private let indexByName: [String: Int]

    init(accepted: [PluginFunction], refused: [FunctionRefusal]) {
        self.accepted = accepted
        self.refused = refused
        indexByName = Dictionary(accepted.enumerated().map { ($0.element.declaration.name, $0.offset) },
                                 uniquingKeysWith: { first, _ in first })
    }

    /// The accepted function called `name`, if there is one.
    func named(_ name: String) -> PluginFunction? {
        indexByName[name].map { accepted[$0] }
    }

    /// The accepted functions as reports show them.
    var declarations: [FunctionDeclaration] { accepted.map(\.declaration) }
}
