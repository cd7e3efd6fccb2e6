import Foundation

/// What goes wrong with a cassette: a file that cannot be read or written, an entry that
/// cannot be replayed, or a request the cassette has no answer for.
///
/// Making a transport or reading a file throws it as it is. A request the cassette refuses
/// rejects, as every request does, with a ``/KringleCore/KringleError``: this error is the
/// underlying value of ``/KringleCore/KringleError/transport(_:)``.
///
/// ```swift
/// if case KringleError.transport(CassetteError.unmatchedRequest(let mismatch)) = error {
///     print(mismatch)   // the request, and the nearest entries with what differs
/// }
/// ```
public enum CassetteError: Error, CustomStringConvertible {
    /// The file at the URL cannot be read, or is not a HAR file; the underlying error says
    /// which (a `DecodingError` names the field).
    case unreadable(URL, underlying: any Error)
    /// The file at the URL cannot be written.
    case unwritable(URL, underlying: any Error)
    /// The entry at the index (from 0; -1 when not known) cannot be turned back into a
    /// response, for the reason given.
    case malformedEntry(Int, reason: String)
    /// No entry of the cassette answers the request: see ``CassetteMismatch`` for the
    /// request and the nearest entries.
    case unmatchedRequest(CassetteMismatch)

    /// What went wrong, in words a person can act on.
    public var description: String {
        switch self {
        case .unreadable(let url, let underlying):
            return "Cannot read the cassette \(url.path): \(underlying)"
        case .unwritable(let url, let underlying):
            return "Cannot write the cassette \(url.path): \(underlying)"
        case .malformedEntry(let index, let reason):
            return "The cassette's entry \(index) cannot be replayed: \(reason)"
        case .unmatchedRequest(let mismatch):
            return mismatch.description
        }
    }
}
