import Foundation

/// The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): a
/// unique key per operation, which lets the server apply a retried POST once.
enum IdempotencyKey {
    static let field = "Idempotency-Key"

    /// A new key: a random UUID as a Structured Fields string (the draft's §2.1 type; RFC
    /// 8941 §3.3.3), quoted.
    static func make() -> String {
        "\"\(UUID().uuidString.lowercased())\""
    }
}
