import CPlugboard

/// What a plugin fetched in answer to a remote notification, strongest first.
public enum FetchResult: String, Sendable, Codable, CaseIterable {
    /// New data was fetched.
    case newData = "new-data"
    /// Nothing new.
    case noData = "no-data"
    /// The fetch failed.
    case failed

    /// The C value (`PB_FETCH_*`), or nil for a value the ABI does not define.
    package init?(abiValue: pb_fetch_result_t) {
        switch abiValue {
        case PB_FETCH_NEW_DATA: self = .newData
        case PB_FETCH_NO_DATA: self = .noData
        case PB_FETCH_FAILED: self = .failed
        default: return nil
        }
    }

    /// The C value (`PB_FETCH_*`).
    package var abiValue: pb_fetch_result_t {
        switch self {
        case .newData: PB_FETCH_NEW_DATA
        case .noData: PB_FETCH_NO_DATA
        case .failed: PB_FETCH_FAILED
        }
    }

    /// The reduction: new data wins over no data, which wins over failed.
    package static func strongest(_ lhs: FetchResult, _ rhs: FetchResult) -> FetchResult {
        let rank: (FetchResult) -> Int = { allCases.firstIndex(of: $0) ?? allCases.count }
        return rank(lhs) <= rank(rhs) ? lhs : rhs
    }
}
