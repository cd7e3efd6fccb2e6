import Foundation

extension HAR {
    /// What an entry that got no response (status 0) says of its error.
    ///
    /// Chrome writes the error in the response's custom field `_error` (a Chrome export's
    /// failed fetch: `"response": {"status": 0, …, "_error": "net::ERR_CONNECTION_REFUSED"}`),
    /// and so does Kringle, with a timeout's kind and phase beside it (`_kringleError`,
    /// `_kringleTimeoutPhase`). Cassettes Kringle wrote before kept these fields on the entry
    /// itself; they are read there when the response does not have them.
    struct Failure {
        static let errorField = "_error"
        static let kindField = "_kringleError"
        static let timeoutPhaseField = "_kringleTimeoutPhase"

        /// The error's description, as the recording (or the browser) saw it.
        var error: String?
        /// The kind of a Kringle error replayed as that error: `timedOut`.
        var kind: String?
        /// A timeout's ``/KringleCore/TimeoutPhase`` raw value.
        var timeoutPhase: String?

        /// The failure `entry` recorded.
        init(_ entry: Entry) {
            func field(_ name: String) -> String? {
                if case .string(let value)? = entry.response.custom[name] { return value }
                if case .string(let value)? = entry.custom[name] { return value }
                return nil
            }
            error = field(Self.errorField)
            kind = field(Self.kindField)
            timeoutPhase = field(Self.timeoutPhaseField)
        }
    }
}
