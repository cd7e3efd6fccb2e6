import Foundation

/// A request no entry of a cassette answers, and the entries that came closest: what
/// ``CassetteError/unmatchedRequest(_:)`` carries.
///
/// Its description reads:
/// ```
/// No entry of the cassette cats.har answers GET https://cats.example/cats?page=3 (4 entries, 2 unused).
/// Nearest:
///   #1 GET https://cats.example/cats?page=2: query lacks page=2; query has page=3 not recorded
///   #0 GET https://cats.example/cats: query has page=3 not recorded
/// ```
public struct CassetteMismatch: Error, Sendable, CustomStringConvertible {
    /// A recorded entry and why it did not answer.
    public struct Candidate: Sendable, Hashable {
        /// Its index in the cassette's entries, from 0.
        public var index: Int
        /// Its method.
        public var method: String
        /// Its URL, as recorded (redacted).
        public var url: String
        /// What differs, or why an entry that matches could not answer (used already, out of
        /// the recorded order).
        public var reasons: [String]
    }

    /// The request's method.
    public var method: String
    /// The request's URL, redacted as a cassette would record it.
    public var url: String
    /// The cassette's file name, or `nil` for an archive given in memory.
    public var cassette: String?
    /// How many entries the cassette holds.
    public var entryCount: Int
    /// How many of them have not answered yet.
    public var unusedCount: Int
    /// The closest entries, closest first (at most three).
    public var nearest: [Candidate]

    /// The request, the cassette and the nearest entries with their differences.
    public var description: String {
        let name = cassette ?? "(in memory)"
        var text =
            "No entry of the cassette \(name) answers \(method) \(url) "
            + "(\(entryCount) entries, \(unusedCount) unused)."
        if nearest.isEmpty { return text + " The cassette is empty: record it first." }
        text += "\nNearest:"
        for candidate in nearest {
            text += "\n  #\(candidate.index) \(candidate.method) \(candidate.url): "
            text += candidate.reasons.joined(separator: "; ")
        }
        return text
    }
}
