import CCurlShim
import Foundation
@_spi(KringleInternals) import KringleCore
@_spi(KringleInternals) import KringlePromise

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WebSocket on the system's stack: `URLSessionWebSocketTask` behind the same
/// ``/KringleCore/WebSocket`` as curl's connections.
///
/// The system frames, masks, answers pings and negotiates what it supports itself, so some
/// options are its own to honour: ``/KringleCore/WebSocketOptions/maximumMessageLength`` becomes the task's
/// `maximumMessageSize`, the buffers are the system's (``/KringleCore/WebSocketOptions/receiveBufferBytes``
/// and ``/KringleCore/WebSocketOptions/sendBufferBytes`` do not apply), the system sends no pings of its
/// own (``/KringleCore/WebSocketOptions/pingInterval`` does not apply; ``/KringleCore/WebSocket/ping()`` does, with
/// ``/KringleCore/WebSocketOptions/pongTimeout``), ``/KringleCore/WebSocket/close(code:reason:)`` hands the close to
/// the system and settles at once (``/KringleCore/WebSocketOptions/closeTimeout`` is the system's), and
/// whether messages are compressed is not reported (``isCompressed`` is `false`). On Linux, FoundationNetworking
/// has the task but needs a libcurl built with WebSocket support, which Debian's (7.88) is
/// not: the opening then fails with ``/KringleCore/KringleError/unsupportedConfiguration(_:)``.
final class URLSessionWebSocketChannel: WebSocketChannel, @unchecked Sendable {
    // Unchecked: the task is thread-safe (URLSession's own locking); `state` is guarded by
    // its lock; the rest is immutable.
    let url: URL
    let subprotocol: String?
    var isCompressed: Bool { false }
    var bufferedBytes: Int { 0 }
    private let task: URLSessionWebSocketTask
    private let options: WebSocketOptions
    private let clock: any KringleClock
    private let state = Locked(State())

    private struct State: Sendable {
        var closeFrame: WebSocketCloseFrame?
        var closedByUser: WebSocketCloseFrame?
    }

    init(
        task: URLSessionWebSocketTask, url: URL, subprotocol: String?, options: WebSocketOptions,
        clock: any KringleClock
    ) {
        self.task = task
        self.url = url
        self.subprotocol = subprotocol
        self.options = options
        self.clock = clock
    }

    var closeFrame: WebSocketCloseFrame? {
        state.withLock { $0.closeFrame }
    }

    func send(_ message: WebSocketMessage) -> Promise<Void> {
        let sent = Promise<Void>.pending()
        let system: URLSessionWebSocketTask.Message =
            switch message {
            case .text(let text): .string(text)
            case .binary(let data): .data(data)
            }
        task.send(system) { [self] error in
            if let error { sent.reject(ended(by: error)) } else { sent.fulfill(()) }
        }
        return sent
    }

    func receive() -> Promise<WebSocketMessage?> {
        let next = Promise<WebSocketMessage?>.pending()
        task.receive { [self] result in
            switch result {
            case .success(.string(let text)):
                next.fulfill(.text(text))
            case .success(.data(let data)):
                next.fulfill(.binary(data))
            case .success:
                next.reject(KringleError.webSocketClosed(url, .unsupportedData, reason: "a message of an unknown kind"))
            case .failure(let error):
                // A closing handshake ends the messages without an error.
                if let frame = closed() {
                    state.withLock { $0.closeFrame = $0.closeFrame ?? frame }
                    next.fulfill(nil)
                } else {
                    next.reject(ended(by: error))
                }
            }
        }
        return next
    }

    func ping() -> Promise<Void> {
        let pong = Promise<Void>.pending()
        task.sendPing { [self] error in
            if let error { pong.reject(ended(by: error)) } else { pong.fulfill(()) }
        }
        // The system waits for the pong as long as it likes: the pong timeout is the client's.
        let timer = clock.schedule(after: options.pongTimeout) { [self] in
            pong.reject(KringleError.webSocketUnresponsive(url, silence: options.pongTimeout))
            task.cancel(with: .goingAway, reason: nil)
        }
        pong.always { [clock] in clock.cancel(timer) }
        return pong
    }

    func close(code: WebSocketCloseCode, reason: String) -> Promise<Void> {
        // The system's close codes are an enumeration of the registered ones (1000-1015).
        guard let systemCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) else {
            return Promise(
                error: KringleError.unsupportedConfiguration(
                    "URLSessionWebSocketTask cannot send the close code \(code)."))
        }
        state.withLock { $0.closedByUser = WebSocketCloseFrame(code: code, reason: reason) }
        task.cancel(with: systemCode, reason: Data(reason.utf8))
        return Promise(())
    }

    func abandon() {
        task.cancel(with: .goingAway, reason: nil)
    }

    /// The close frame, if the connection ended with a closing handshake: the server's, or
    /// the one this side sent.
    private func closed() -> WebSocketCloseFrame? {
        if let byUser = state.withLock({ $0.closedByUser }) { return byUser }
        guard task.closeCode != .invalid else { return nil }
        let code = WebSocketCloseCode(rawValue: UInt16(clamping: task.closeCode.rawValue))
        return WebSocketCloseFrame(
            code: code, reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// What a failed operation reports: the close, if the connection was closed, or the
    /// system's error.
    private func ended(by error: any Error) -> any Error {
        if let frame = closed() {
            return KringleError.webSocketClosed(url, frame.code ?? .noStatusReceived, reason: frame.reason)
        }
        return URLSessionTransport.kringleError(for: error, url: url, head: nil, receivedBodyBytes: nil)
    }
}

extension URLSessionTransport: WebSocketConnecting {
    /// Opens a `URLSessionWebSocketTask` for the request (its `http` URL back in its `ws`
    /// form) and settles once the server has answered: with the `101` when the connection is
    /// open, handed to `upgrade`.
    package func openWebSocket(_ transfer: TransferRequest, upgrade: WebSocketUpgrade) -> Promise<HTTPResponse> {
        var request = URLSessionTransport.sessionRequest(transfer.request)
        let url = transfer.request.url
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return Promise(error: KringleError.invalidRequest("The WebSocket's URL cannot be taken apart."))
        }
        components.scheme = components.scheme?.lowercased() == "https" ? "wss" : "ws"
        #if canImport(FoundationNetworking)
        // FoundationNetworking's WebSockets are libcurl's (curl 7.86 and later, built with
        // them); without, its task fails with errors that do not say why.
        if CurlTransport.isAvailable, kcurl_supports_protocol("ws") == 0 {
            return Promise(
                error: KringleError.unsupportedConfiguration(
                    "URLSessionTransport cannot open WebSockets here: FoundationNetworking needs a libcurl built with "
                        + "WebSocket support, and this one (\(String(cString: kcurl_version()))) has none. "
                        + "CurlTransport, the default on Linux, opens them."))
        }
        #endif
        request.url = components.url
        for (name, value) in upgrade.handshakeFields(key: "") where name == "Sec-WebSocket-Protocol" {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = upgrade.options.maximumMessageLength
        let opened = Promise<HTTPResponse>.pending()
        opened.onCancel { task.cancel() }
        task.resume()
        // The pong of a first ping comes once the handshake is over: the task's response is
        // then the server's 101 (or the refusal that failed the ping).
        task.sendPing { error in
            let head = task.response as? HTTPURLResponse
            let response = head.map {
                HTTPResponse(
                    statusCode: $0.statusCode, headers: FoldedHeaders.unfold($0.allHeaderFields), url: url)
            }
            if let error {
                guard let response, response.statusCode != 101 else {
                    opened.reject(Self.kringleError(for: error, url: url, head: head, receivedBodyBytes: nil))
                    return
                }
                transfer.responseBodyChannel?.finish()
                opened.fulfill(response)
                return
            }
            let switched = response ?? HTTPResponse(statusCode: 101, url: url)
            let subprotocol = switched.headers.values(for: "Sec-WebSocket-Protocol").first
            upgrade.opened(
                URLSessionWebSocketChannel(
                    task: task, url: url, subprotocol: subprotocol, options: upgrade.options, clock: upgrade.clock))
            transfer.responseBodyChannel?.finish()
            opened.fulfill(switched)
        }
        return opened
    }
}
