import Plugboard

/// A library of a `--json` listing: its report's fields, and `cached`.
struct CachedReport: Encodable {
    let library: ScannedLibrary

    private enum CodingKeys: String, CodingKey { case cached }

    func encode(to encoder: any Encoder) throws {
        try library.report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(library.cached, forKey: .cached)
    }
}
