import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkClient {
    /// Hands an event to the logger, if there is one; the event is only built then.
    func log(_ event: @autoclosure () -> KringleLogEvent) {
        configuration.logger?.log(event())
    }

    /// A URL as a log event shows it: redacted.
    private func loggedURL(_ url: URL?) -> Redacted<URL> {
        configuration.redaction.redacting(url ?? URL(fileURLWithPath: "/"))
    }

    func logSent(_ request: URLRequest) {
        guard isLogging else { return }
        log(
            .requestSent(
                method: request.httpMethod ?? "GET",
                url: loggedURL(request.url),
                headers: configuration.redaction.redacting(request.kringleHeaders)
            ))
    }

    func logCompressed(_ request: URLRequest, _ sizes: CompressedBodySizes) {
        log(.requestBodyCompressed(method: request.httpMethod ?? "GET", url: loggedURL(request.url), sizes: sizes))
    }

    func logReceived(_ response: HTTPResponse, for request: URLRequest, since start: UInt64) {
        guard isLogging else { return }
        log(
            .responseReceived(
                method: request.httpMethod ?? "GET",
                url: loggedURL(response.url),
                statusCode: response.statusCode,
                duration: Double(configuration.clock.uptimeNanoseconds &- start) / 1e9,
                bodySize: response.body.count,
                headers: configuration.redaction.redacting(response.headers),
                metrics: response.metrics
            ))
    }

    func logRetry(_ request: URLRequest, attempt: Int, reason: any Error, delay: TimeInterval) {
        log(
            .retry(
                method: request.httpMethod ?? "GET",
                url: loggedURL(request.url),
                attempt: attempt,
                reason: configuration.redaction.redacting(reason),
                delay: delay
            ))
    }

    @usableFromInline
    func logFailure(_ request: URLRequest, _ error: any Error) {
        log(
            .failure(
                method: request.httpMethod ?? "GET", url: loggedURL(request.url),
                error: configuration.redaction.redacting(error)))
    }
}
