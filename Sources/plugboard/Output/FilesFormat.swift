import Foundation

/// The human renderings of `plugboard files`: permissions, dates, names.
enum FilesFormat {
    /// Permission bits (with set-user-ID, set-group-ID, sticky) as four octal digits, e.g. "0644".
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The permission bits as `ls` writes them, e.g. "rw-r--r--", "rwsr-xr-x", "rwxrwxrwt".
    static func symbolic(_ mode: UInt32) -> String {
        func triple(_ shift: UInt32, special: UInt32, set: Character) -> String {
            let read = mode & (0o4 << shift) != 0 ? "r" : "-"
            let write = mode & (0o2 << shift) != 0 ? "w" : "-"
            let executable = mode & (0o1 << shift) != 0
            let execute: Character = mode & special != 0
                ? (executable ? set : Character(set.uppercased())) : (executable ? "x" : "-")
            return read + write + String(execute)
        }
        return triple(6, special: 0o4000, set: "s") + triple(3, special: 0o2000, set: "s")
            + triple(0, special: 0o1000, set: "t")
    }

    /// An instant in ISO 8601, UTC, to the second: "2026-03-01T12:34:56Z".
    static func iso8601(_ date: Date) -> String {
        date.ISO8601Format()
    }

    /// An instant for people, in the local time zone: "2026-03-01 13:34".
    static func humanDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    /// `text` padded with spaces to `width`.
    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// `text` right-aligned in `width` columns.
    static func rightAligned(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
