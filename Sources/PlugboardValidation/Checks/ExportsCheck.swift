import CPlugboard
import Plugboard

/// The `exports` check: the library exports its entry point and nothing else.
enum ExportsCheck {
    /// How many of the other exported names a warning lists.
    static let namesShown = 5

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
            return (.warn, "\(others.count) symbol(s) besides \(PB_ENTRY_SYMBOL) are exported (build with -fvisibility=hidden): "
                + others.prefix(namesShown).joined(separator: ", ") + (others.count > namesShown ? ", …" : ""))
        }
        return (.pass, "\(PB_ENTRY_SYMBOL) is the only export")
    }
}
