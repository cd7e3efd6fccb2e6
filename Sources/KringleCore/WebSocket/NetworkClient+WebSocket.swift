import Foundation
@_spi(KringleInternals) import KringlePromise

extension NetworkClient {
    /// Opens a WebSocket (RFC 6455) to `endpoint`: a `ws://` or `wss://` base URL, or
    /// `http://` and `https://`, which mean the same.
    ///
    /// ```swift
    /// let socket = try await client.webSocket(Chat.room("lobby")).value
    /// try await socket.send(text: "hello").value
    /// for try await message in socket.messages {
    ///     print(message)
    /// }
    /// ```
    ///
    /// The opening handshake is a request like any other: the endpoint's headers and query,
    /// the client's default fields, interceptors (an expired token refreshed on a `401`),
    /// the cookie jar (cookies sent, and those the server sets stored), redirects, the
    /// client's redaction in logs, and its timeout until the server has answered. With the
    /// default transport on Linux, the connection honours the transport's TLS trust, pins
    /// and client certificates, its proxy (by a `CONNECT` tunnel) and Unix sockets
    /// (`ws+unix://` and `wss+unix://` name them as `http+unix://` does).
    ///
    /// - Returns: The open connection, or ``KringleError/webSocketRefused(_:reason:)`` when
    ///   the server answered but did not switch protocols.
    public func webSocket(_ endpoint: some Endpoint, options: WebSocketOptions = WebSocketOptions()) -> Promise<
        WebSocket
    > {
        let configuration = configuration
        var eachTime = options
        eachTime.reconnection = nil
        let reopen: WebSocketConnection.Reopen = { [eachTime] in
            self.webSocketSession(endpoint, options: eachTime).mapResultInline { try $0.get().channel }
        }
        return webSocketSession(endpoint, options: options).mapResultInline { result in
            let opened = try result.get()
            let connection = WebSocketConnection(
                channel: opened.channel, policy: options.reconnection, clock: configuration.clock,
                budget: configuration.retryBudget, reopen: reopen)
            return WebSocket(
                connection: connection, response: opened.head, encoder: configuration.encoder,
                decoder: configuration.decoder)
        }
    }

    /// One opening handshake to `endpoint`, through the pipeline: the channel on the open
    /// connection and the server's `101`.
    private func webSocketSession(_ endpoint: some Endpoint, options: WebSocketOptions) -> Promise<
        (channel: any WebSocketChannel, head: Response<Void>)
    > {
        let request: ValidatedRequest
        var transferOptions: TransferOptions
        do {
            let built = try RequestAssembly.build(.get, endpoint, body: nil, for: self)
            request = Self.httpForm(of: built.request)
            transferOptions = built.options
        } catch {
            return Promise(error: error)
        }
        let upgrade = WebSocketUpgrade(options: options, clock: configuration.clock)
        // A refusal's body goes to the caller's error like any streamed body's start.
        transferOptions.bodyChannels = StreamChannels(capacity: 64 << 10, webSocket: upgrade)
        let redaction = configuration.redaction
        return runPipeline(for: request, options: transferOptions) { response in
            var head = Response(value: (), body: Data(), of: response)
            head.redaction = redaction
            guard let channel = upgrade.takeChannel() else {
                throw KringleError.webSocketRefused(
                    Response(response, redaction: redaction),
                    reason: "the server answered \(response.statusCode), not 101 Switching Protocols")
            }
            return (channel, head)
        }
    }

    /// The request with the `http` form of a `ws` URL (RFC 6455 §3: `ws` is `http`'s port
    /// and `wss` is `https`'s, and the handshake is an HTTP request).
    private static func httpForm(of request: ValidatedRequest) -> ValidatedRequest {
        guard let scheme = request.url.scheme?.lowercased(), scheme.hasPrefix("ws"),
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        else { return request }
        components.scheme = "http" + scheme.dropFirst(2)
        guard let httpURL = components.url else { return request }
        return request.with(url: httpURL)
    }

    /// The transport's handshake for one hop of a WebSocket call.
    func openWebSocket(_ transfer: TransferRequest, upgrade: WebSocketUpgrade) -> Promise<HTTPResponse> {
        guard let connecting = transport as? any WebSocketConnecting else {
            return Promise(
                error: KringleError.unsupportedConfiguration("\(type(of: transport)) cannot open WebSockets."))
        }
        return connecting.openWebSocket(transfer, upgrade: upgrade)
    }
}
