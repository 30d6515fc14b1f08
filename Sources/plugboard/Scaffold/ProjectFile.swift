/// One file of a scaffolded project: its path inside the project folder and its text.
struct ProjectFile: Equatable {
    /// Relative to the project folder, `/`-separated (`Sources/HelloPlugin/HelloPlugin.swift`).
    let path: String
    /// The whole content.
    let text: String
}
