/// The documented ways of calling plugins and reducing their answers.
public enum DispatchPolicy: String, Sendable, Codable {
    /// Call every plugin, then AND the answers; `false` answers are vetoes. True with no plugins.
    case callAllAnd = "call-all-and"
    /// Priority order; the first `true` handles the event and the rest are not called. False with no plugins.
    case firstTrueWins = "first-true-wins"
    /// Call every plugin; the strongest answer wins (new data > no data > failed), once all
    /// answered or the deadline passed. No data with no plugins.
    case callAllStrongestFetch = "call-all-strongest-fetch"
    /// Call every plugin in priority order; no answer.
    case broadcast
    /// Call every plugin in reverse priority order (last in, first out); no answer.
    case broadcastReverse = "broadcast-reverse"
}
