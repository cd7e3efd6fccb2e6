import Foundation

/// One message of a WebSocket connection (RFC 6455 §5.6): text, which is always valid UTF-8,
/// or binary data.
///
/// ```swift
/// for try await message in socket.messages {
///     switch message {
///     case .text(let text): print(text)
///     case .binary(let data): print(data.count, "bytes")
///     }
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary(Data)

    /// The message's bytes as they travel: a text's UTF-8, or the binary data.
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }

    /// The text, or `nil` for a binary message.
    public var text: String? {
        guard case .text(let text) = self else { return nil }
        return text
    }
}
