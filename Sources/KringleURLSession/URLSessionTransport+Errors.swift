import Foundation
@_spi(KringleInternals) import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// What a failed task rejects with: the ``/KringleCore/KringleError`` that ``/KringleCore/CurlTransport`` gives
    /// for the same fault, so that callers and ``/KringleCore/RetryPolicy`` see one error per fault
    /// whichever transport ran.
    ///
    /// FoundationNetworking (Swift 6.3) maps a few libcurl codes to `URLError` codes and
    /// every other one to `unknown` (-1), with libcurl's error buffer as the description:
    ///
    /// | fault | libcurl | `URLError` | rejects with |
    /// |---|---|---|---|
    /// | a status line that is not HTTP (`HTTP/1.2`, a 4-digit status, no `HTTP/`) | 1 | -1002 `unsupportedURL` | `malformedResponse` |
    /// | a body that does not decode as its `Content-Encoding` says | 61 | -1 `unknown` | `invalidResponse` |
    /// | closed after the head or mid-body | 18 | -1 `unknown` | `incompleteResponse` |
    /// | reset after the head or mid-body | 56 | -1005 `networkConnectionLost` | `incompleteResponse` |
    /// | closed before any answer | 52 | -1011 `badServerResponse` | `transport` |
    /// | reset before any answer | 56 | -1005 `networkConnectionLost` | `transport` |
    ///
    /// Apple's URLSession names more faults in its codes; `cannotParseResponse` is a
    /// malformed response there, `cannotDecodeContentData` a body that breaks its coding.
    ///
    /// - Parameters:
    ///   - error: The task's error.
    ///   - url: The request's URL.
    ///   - head: The response head, when one arrived before the failure.
    ///   - receivedBodyBytes: The body bytes that arrived as sent, where known (not for a
    ///     content-coded body, which arrives decoded).
    static func kringleError(
        for error: any Error, url: URL?, head: HTTPURLResponse?, receivedBodyBytes: Int64?
    ) -> any Error {
        guard let urlError = error as? URLError else { return KringleError.transport(error) }
        let requestURL = url ?? urlError.failingURL ?? URL(fileURLWithPath: "/")
        switch urlError.code {
        case .timedOut:
            return KringleError.timedOut(.total)
        case .cancelled:
            return PromiseError.cancelled
        case .cannotParseResponse:
            return KringleError.malformedResponse(requestURL, reason: reason(of: urlError))
        case .unsupportedURL where answerWasRefused(urlError, url: requestURL):
            return KringleError.malformedResponse(requestURL, reason: reason(of: urlError))
        default:
            break
        }
        if let failure = tlsFailure(for: urlError) {
            return KringleError.tls(urlError.failingURL ?? requestURL, failure, underlying: error)
        }
        if let head, breaksContentCoding(urlError) {
            let coding = head.value(forHTTPHeaderField: "Content-Encoding") ?? "its Content-Encoding"
            let response = HTTPResponse(
                statusCode: head.statusCode, headers: FoldedHeaders.unfold(head.allHeaderFields),
                url: head.url ?? requestURL)
            return KringleError.invalidResponse(
                Response(response), reason: "the body does not decode as \(coding) (\(reason(of: urlError)))")
        }
        // After the head, a lost connection or one of the failures FoundationNetworking
        // leaves unnamed (`CURLE_PARTIAL_FILE` among them) cut the response short.
        if let head, urlError.code == .networkConnectionLost || urlError.code == .unknown {
            return KringleError.incompleteResponse(
                requestURL, received: receivedBodyBytes,
                expected: head.expectedContentLength >= 0 ? head.expectedContentLength : nil, underlying: error)
        }
        return KringleError.transport(error)
    }

    /// Whether an `unsupportedURL` error is libcurl refusing the answer
    /// (`CURLE_UNSUPPORTED_PROTOCOL` after the request went out: "Unsupported HTTP version
    /// (1.2) in response", "Received HTTP/0.9 when not allowed") rather than the request.
    ///
    /// FoundationNetworking refuses every scheme but `http` and `https` in lower case
    /// itself (`HTTP://…` too), so for those two the scheme cannot be what was refused;
    /// libcurl's own refusal of a scheme it was built without says "not supported or
    /// disabled in libcurl".
    private static func answerWasRefused(_ error: URLError, url: URL) -> Bool {
        guard url.scheme == "http" || url.scheme == "https" else { return false }
        return !reason(of: error).contains("disabled in libcurl")
    }

    /// Whether the body did not decode as its `Content-Encoding` says: Apple's code for it,
    /// or libcurl's `CURLE_BAD_CONTENT_ENCODING`, which FoundationNetworking leaves unnamed
    /// (its message begins "Error while processing content unencoding").
    private static func breaksContentCoding(_ error: URLError) -> Bool {
        error.code == .cannotDecodeContentData
            || (error.code == .unknown && reason(of: error).contains("content unencoding"))
    }

    /// libcurl's or URLSession's words for what went wrong.
    private static func reason(of error: URLError) -> String {
        error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription
    }
}
