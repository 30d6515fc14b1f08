extension Optional where Wrapped: RangeReplaceableCollection {
    /// Appends `element`, making the collection at the first one. An event's lists of deciders and
    /// failures are nearly always empty: kept as nil, they cost no allocation, and dropping them
    /// no release.
    mutating func append(_ element: Wrapped.Element) {
        var elements = take() ?? Wrapped()
        elements.append(element)
        self = elements
    }
}
