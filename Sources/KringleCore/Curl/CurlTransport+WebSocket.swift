import Foundation
@_spi(KringleInternals) import KringlePromise

extension CurlTransport: WebSocketConnecting {
    /// Connects as a transfer would (the configuration's TLS, proxy and Unix sockets apply),
    /// then hands the connection to a ``CurlWebSocketLink`` for the handshake and the frames.
    package func openWebSocket(_ transfer: TransferRequest, upgrade: WebSocketUpgrade) -> Promise<HTTPResponse> {
        submit { engine, promise in
            var plan = try CurlRequestPlan(transfer.request.request, timeLimit: .deadline(nil))
            plan.connectTimeoutMilliseconds = transfer.connectTimeout.map(CurlRequestPlan.milliseconds) ?? 0
            guard let target = URL(string: plan.url) else {
                throw KringleError.invalidRequest("The WebSocket's URL \(plan.url) cannot be parsed.")
            }
            let opening = WebSocketOpening(
                request: transfer.request.request, target: target, upgrade: upgrade, promise: promise,
                channel: transfer.responseBodyChannel)
            engine.submit(plan, opening: opening, channel: transfer.responseBodyChannel, promise: promise)
        }
    }
}
