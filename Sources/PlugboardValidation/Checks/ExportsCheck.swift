import CPlugboard
import Plugboard

/// The `exports` check: the library exports its entry point and nothing else.
enum ExportsCheck {
    /// How many of the other exported names a warning lists.
    static let namesShown = 5

    /// What the author of a library exporting `others` besides the entry can do: for Swift's own
    /// symbols (mangled `$s…`, beside the linker's markers), which SwiftPM exports from every
    /// module of a `.dynamic` product, nothing; for C or C++, hide them.
    static func advice(_ others: [String]) -> String {
        let linkerMarkers: Set<String> = ["__bss_start", "_edata", "_end"]
        let swift = others.contains { $0.hasPrefix("$s") } && others.allSatisfy { $0.hasPrefix("$s") || linkerMarkers.contains($0) }
        return swift ? "Swift symbols, which SwiftPM exports from a Swift library: expected for a Swift plugin"
            : "build with -fvisibility=hidden"
    }

    /// The check.
    static let check = ValidationCheck(
        name: "exports",
        description: "\(PB_ENTRY_SYMBOL) is the library's only exported symbol (read from the file, without loading it).")
    { subject in
        let names: [String]
        do throws(LoadFailure) {
            names = try WorkerHarness.exportedSymbols(of: subject.path)
        } catch {
            return (.skipped, "the dynamic symbols cannot be read: \(error)")
        }
        let others = names.filter { $0 != PB_ENTRY_SYMBOL }
        guard names.contains(PB_ENTRY_SYMBOL) else { return (.fail, "\(PB_ENTRY_SYMBOL) is not exported") }
        guard others.isEmpty else {
            return (.warn, "\(others.count) symbol(s) besides \(PB_ENTRY_SYMBOL) are exported (\(advice(others))): "
                + others.prefix(namesShown).joined(separator: ", ") + (others.count > namesShown ? ", …" : ""))
        }
        return (.pass, "\(PB_ENTRY_SYMBOL) is the only export")
    }
}
