@_spi(KringleInternals) import KringlePromise

/// The body channels of one streamed call, a channel per hop: whoever cancels the call stops
/// every one of them, whatever stage the call has reached (a hop's transport may have
/// settled with its head while the pipeline has not yet handed the stream over).
final class StreamChannels: Sendable {
    /// How many bytes each channel lets wait for the reader.
    let capacity: Int
    /// For a WebSocket call: its opening handshake, which each hop's transport performs
    /// (NetworkClient+WebSocket.swift).
    let webSocket: WebSocketUpgrade?
    private let state = Locked<(channels: [ResponseBodyChannel], cancelled: Bool)>(([], false))

    init(capacity: Int, webSocket: WebSocketUpgrade? = nil) {
        self.capacity = capacity
        self.webSocket = webSocket
    }

    /// A new channel for the next hop; already cancelled when the call is.
    func make() -> ResponseBodyChannel {
        let channel = ResponseBodyChannel(capacity: capacity)
        let cancelled = state.withLock { state -> Bool in
            state.channels.append(channel)
            return state.cancelled
        }
        if cancelled { channel.cancel() }
        return channel
    }

    /// Stops every hop's transfer; channels made later are cancelled at once.
    func cancelAll() {
        let channels = state.withLock { state -> [ResponseBodyChannel] in
            state.cancelled = true
            return state.channels
        }
        for channel in channels { channel.cancel() }
    }
}
