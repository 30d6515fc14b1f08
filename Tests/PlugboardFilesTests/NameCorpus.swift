/// A deterministic random number generator, so a failing corpus name can
/// be reproduced from the seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random and adversarial names for the confinement corpus: random bytes
/// (with '/', '.', NUL, backslashes, invalid UTF-8), dot-and-slash soups,
/// percent-encodings, look-alike unicode, combining marks after '/' and
/// '.', very long names, absolute paths, names through the planted links,
/// and some plain names so that successes are exercised too.
enum NameCorpus {
    /// The links `ConfinementCorpusTests` plants in every standard directory.
    static let plantedLinks = ["escape", "escapeRelative", "escapeFile", "loop", "sub/escape"]

    /// The corpus names at `indices`. Each name has its own generator seeded
    /// from `seed` and its index, so any slice is reproducible on its own.
    static func names(_ indices: Range<Int>, seed: UInt64, outside: String, containerRoot: String) -> [String] {
        indices.map { index in
            var generator = SplitMix64(seed: seed ^ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            switch index % 10 {
            case 0: return randomBytes(using: &generator)
            case 1, 2: return dotSlashSoup(using: &generator)
            case 3: return adversarialPath(index: index, using: &generator)
            case 4, 5: return throughPlantedLink(index: index, using: &generator)
            case 6: return long(using: &generator)
            case 7: return unicode(using: &generator)
            case 8: return absolute(outside: outside, containerRoot: containerRoot, using: &generator)
            default: return plain(index: index, using: &generator)
            }
        }
    }

    private static func randomBytes<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let special: [UInt8] = [0x2F, 0x2F, 0x2E, 0x2E, 0x2E, 0x00, 0x5C, 0x25, 0x20, 0x0A]
        let bytes = (0..<Int.random(in: 1...24, using: &generator)).map { _ -> UInt8 in
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: special.randomElement(using: &generator) ?? 0x2F
            case 1: UInt8.random(in: 0x61...0x7A, using: &generator)
            default: UInt8.random(in: 0...0xFF, using: &generator)
            }
        }
        // Invalid UTF-8 is repaired to U+FFFD, as a C caller's bytes would be.
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func dotSlashSoup<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let tokens = [
            "..", ".", "/", "//", "...", ".. ", " ..", "..\\", "\\..", "%2e%2e", "%2E%2E%2F", "%2f", "..%2f",
            "\\", "~", "$HOME", "..;", ".\u{0}.", "..\u{0}",
        ]
        return (0..<Int.random(in: 1...6, using: &generator))
            .map { _ in tokens.randomElement(using: &generator) ?? ".." }.joined()
    }

    private static func adversarialPath<G: RandomNumberGenerator>(index: Int, using generator: inout G) -> String {
        let segments = [
            "..", ".", "", "a", "Inbox", "sub", "escape", "escapeRelative", "escapeFile", "loop", "outside",
            "secret.txt", "nested", "deep.txt", "%2e%2e", "..\u{301}", "\u{301}", "\u{FF0E}\u{FF0E}",
            "\u{2024}\u{2024}", "\u{2026}", "\u{FEFF}", "\u{0}", "日本", "🙂", "a\\..\\b", "new-\(index)",
        ]
        let prefixes = ["", "", "", "/", "../", "./", "Inbox/../"]
        let body = (0..<Int.random(in: 1...5, using: &generator))
            .map { _ in segments.randomElement(using: &generator) ?? "a" }.joined(separator: "/")
        return (prefixes.randomElement(using: &generator) ?? "") + body
    }

    private static func throughPlantedLink<G: RandomNumberGenerator>(index: Int, using generator: inout G) -> String {
        let suffixes = ["", "/secret.txt", "/nested/deep.txt", "/new-\(index)", "/nested", "/x/y", "/..", "/."]
        return (plantedLinks.randomElement(using: &generator) ?? "escape")
            + (suffixes.randomElement(using: &generator) ?? "")
    }

    private static func long<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        func run(_ length: Int, _ generator: inout G) -> String {
            String((0..<length).map { _ in letters.randomElement(using: &generator) ?? "a" })
        }
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return run(Int.random(in: 250...260, using: &generator), &generator)
        case 1: return "a/" + run(Int.random(in: 256...400, using: &generator), &generator)
        case 2:
            return (0..<Int.random(in: 10...40, using: &generator))
                .map { _ in run(Int.random(in: 50...255, using: &generator), &generator) }.joined(separator: "/")
        default: return String(repeating: "../", count: Int.random(in: 1...1500, using: &generator)) + "outside"
        }
    }

    private static func unicode<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let ranges: [ClosedRange<UInt32>] = [
            0x0300...0x036F, 0x4E00...0x4FFF, 0x1F600...0x1F64F, 0x0590...0x05FF, 0xFF00...0xFF5E, 0x2000...0x206F,
            0x2E...0x2F,
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 1...20, using: &generator) {
            let range = ranges.randomElement(using: &generator) ?? 0x2E...0x2F
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    private static func absolute<G: RandomNumberGenerator>(outside: String, containerRoot: String, using generator: inout G) -> String {
        let candidates = [
            outside, outside + "/secret.txt", outside + "/nested/deep.txt", outside + "/new", "/", "//",
            "/tmp", containerRoot + "/Documents/x", "/\u{301}", "/..", "/./" + outside,
        ]
        return candidates.randomElement(using: &generator) ?? "/"
    }

    private static func plain<G: RandomNumberGenerator>(index: Int, using generator: inout G) -> String {
        let folders = ["", "", "folder\(index % 7)/", "a/b/c/", "Inbox/", "sub/"]
        return (folders.randomElement(using: &generator) ?? "") + "file-\(index).txt"
    }
}
