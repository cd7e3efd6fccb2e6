import Foundation
@_spi(KringleInternals) import KringlePromise

/// An open WebSocket connection (RFC 6455), from ``NetworkClient/webSocket(_:options:)``.
///
/// Send text, binary data or an `Encodable` value as JSON text; read what the server sends
/// as an `AsyncSequence` (``messages``, or ``messages(as:decoder:)`` decoded), or one
/// message at a time with ``receive()``. Every operation returns a promise, so scripts can
/// `wait()` and async code can `await` its `value`.
///
/// ```swift
/// let socket = try await client.webSocket(Chat.room("lobby")).value
/// try await socket.send(json: Hello(name: "Ada")).value
/// for try await message in socket.messages(as: ChatLine.self) {
///     print(message.text)
/// }
/// ```
///
/// The connection answers pings by itself, and with ``WebSocketOptions/pingInterval`` sends
/// its own to notice a silent server. A reader that falls behind holds the server back (the
/// socket is no longer read once ``WebSocketOptions/receiveBufferBytes`` wait), and a
/// sender that outpaces the socket waits (``WebSocketOptions/sendBufferBytes``). Dropping the
/// last reference closes the connection with 1001 (Going Away).
public final class WebSocket: Sendable {
    /// The server's `101 Switching Protocols`, its cookies already in the client's jar.
    public let response: Response<Void>
    /// The subprotocol the server chose from ``WebSocketOptions/subprotocols``, if any.
    public var subprotocol: String? { connection.channel.subprotocol }
    /// Whether messages may travel compressed: the server took the `permessage-deflate` offer
    /// (RFC 7692; ``WebSocketOptions/offersCompression``).
    public var isCompressed: Bool { connection.channel.isCompressed }
    private let connection: WebSocketConnection
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder

    init(connection: WebSocketConnection, response: Response<Void>, encoder: JSONEncoder, decoder: JSONDecoder) {
        self.connection = connection
        self.response = response
        self.encoder = encoder
        self.decoder = decoder
    }

    deinit {
        connection.abandon()
    }

    /// How many bytes of received messages wait for the reader (for tests of the bound).
    var bufferedBytes: Int { connection.channel.bufferedBytes }

    /// The URL the connection was opened to.
    public var url: URL { connection.channel.url }

    // MARK: - Sending

    /// Sends a message. The promise settles once it is on its way within the send buffer,
    /// and fails with ``KringleError/webSocketClosed(_:_:reason:)`` (or what ended the
    /// connection) once the connection is closing.
    @discardableResult
    public func send(_ message: WebSocketMessage) -> Promise<Void> {
        connection.send(message)
    }

    /// Sends `text` as a text message.
    @discardableResult
    public func send(text: String) -> Promise<Void> {
        connection.send(.text(text))
    }

    /// Sends `data` as a binary message.
    @discardableResult
    public func send(data: Data) -> Promise<Void> {
        connection.send(.binary(data))
    }

    /// Sends `value` as JSON text, encoded by the client's encoder (or `encoder`).
    @discardableResult
    public func send(json value: some Encodable, encoder: JSONEncoder? = nil) -> Promise<Void> {
        do {
            let data = try (encoder ?? self.encoder).encode(value)
            return connection.send(.text(String(decoding: data, as: UTF8.self)))
        } catch let error as EncodingError {
            return Promise(error: KringleError.encodingFailed(error))
        } catch {
            return Promise(error: error)
        }
    }

    /// Sends a ping; the promise settles when the server's pong comes back (RFC 6455
    /// §5.5.2), within ``WebSocketOptions/pongTimeout`` or the connection is dropped.
    @discardableResult
    public func ping() -> Promise<Void> {
        connection.channel.ping()
    }

    /// Closes the connection with the closing handshake (RFC 6455 §7): a close frame with
    /// `code` and `reason` (at most 123 bytes of UTF-8), then the server's answer, awaited
    /// for ``WebSocketOptions/closeTimeout``. The messages end (without an error) and later
    /// sends fail; the promise settles once the connection is closed.
    @discardableResult
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") -> Promise<Void> {
        // Checked here, once, for every transport; a refused close changes nothing.
        guard code.isSendable else {
            return Promise(
                error: KringleError.invalidRequest("\(code) may not be sent in a close frame (RFC 6455 §7.4)."))
        }
        guard reason.utf8.count <= WebSocketCloseFrame.maximumReasonLength else {
            return Promise(
                error: KringleError.invalidRequest("A close reason holds at most 123 bytes of UTF-8 (RFC 6455 §5.5)."))
        }
        return connection.close(code: code, reason: reason)
    }

    /// The close frame the server sent, once it has: its status code (`nil` when it gave
    /// none) and reason.
    public var closeReceived: (code: WebSocketCloseCode?, reason: String)? {
        connection.channel.closeFrame.map { ($0.code, $0.reason) }
    }

    // MARK: - Receiving

    /// The next message; `nil` once the connection closed with the closing handshake;
    /// rejected with what ended it otherwise (``KringleError/webSocketClosed(_:_:reason:)``
    /// for a dropped connection, ``KringleError/webSocketProtocolViolation(_:_:)``,
    /// ``KringleError/webSocketUnresponsive(_:silence:)``).
    public func receive() -> Promise<WebSocketMessage?> {
        connection.receive()
    }

    /// The messages as they arrive, until the connection closes; iterate once.
    public var messages: Messages {
        Messages(socket: self)
    }

    /// The messages decoded from JSON (text or binary) as `T`, by the client's decoder or
    /// `decoder`. A message that does not decode ends the iteration with
    /// ``KringleError/webSocketMessageDecodingFailed(_:message:url:)``; the connection stays
    /// open, and a new iteration reads on.
    public func messages<T: Decodable & Sendable>(as type: T.Type, decoder: JSONDecoder? = nil) -> DecodedMessages<T> {
        DecodedMessages(socket: self, decoder: decoder ?? self.decoder)
    }

    /// The messages of a ``WebSocket`` as an `AsyncSequence`; it keeps the connection open
    /// while it is iterated.
    public struct Messages: AsyncSequence, Sendable {
        /// A message.
        public typealias Element = WebSocketMessage
        let socket: WebSocket

        /// Starts reading.
        public func makeAsyncIterator() -> Iterator {
            Iterator(socket: socket)
        }

        /// Reads the next message; cancelling the task ends the wait (not the connection).
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket

            /// The next message, `nil` at a clean close (see ``WebSocket/receive()``).
            public mutating func next() async throws -> WebSocketMessage? {
                try await socket.receive().value
            }
        }
    }

    /// The messages of a ``WebSocket`` decoded from JSON.
    public struct DecodedMessages<T: Decodable & Sendable>: AsyncSequence, Sendable {
        /// A decoded message.
        public typealias Element = T
        let socket: WebSocket
        let decoder: JSONDecoder

        /// Starts reading.
        public func makeAsyncIterator() -> Iterator {
            Iterator(socket: socket, decoder: decoder)
        }

        /// Reads and decodes the next message.
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket
            let decoder: JSONDecoder

            /// The next message decoded, `nil` at a clean close.
            public mutating func next() async throws -> T? {
                guard let message = try await socket.receive().value else { return nil }
                do {
                    return try decoder.decode(T.self, from: message.data)
                } catch let error as DecodingError {
                    throw KringleError.webSocketMessageDecodingFailed(error, message: message, url: socket.url)
                }
            }
        }
    }
}
