@_spi(KringleInternals) import KringleCore

/// Remembers the last formatted `Date` value, since a busy connection sends many responses
/// within the same second.
struct DateHeaderCache {
    private var second = Int.min
    private var formatted = ""

    /// The IMF-fixdate for `secondsSince1970`, formatted at most once per distinct second.
    mutating func value(secondsSince1970: Int) -> String {
        if secondsSince1970 != second {
            second = secondsSince1970
            formatted = HTTPDate.imfFixdate(secondsSince1970: secondsSince1970)
        }
        return formatted
    }
}
