import Kringle

@testable import KringleCore

/// Every case of ``KringleError``, for tests that must cover them all: a case added to
/// `KringleError` breaks the build at ``KringleError/kind`` until it is added here, and
/// then at `ClientErrorTests.example(of:)` until it has an example.
enum KringleErrorKind: String, CaseIterable, Sendable {
    case invalidRequest, encodingFailed, file, transport, tls, timedOut, unsupportedConfiguration
    case unacceptableStatusCode, invalidResponse, malformedResponse, incompleteResponse, decodingFailed
    case tooManyRedirects, responseTooLarge, insecureRedirect, proxyRefused, notCached, lineTooLong
    case lineDecodingFailed
    case eventStreamRefused, compressionFailed, throttled, crossOriginPage, repeatedPage
    case webSocketRefused, webSocketClosed, webSocketProtocolViolation, webSocketUnresponsive
    case webSocketMessageDecodingFailed
}

extension KringleError {
    /// The error's case, without its values. No default: every case must be named.
    var kind: KringleErrorKind {
        switch self {
        case .invalidRequest: .invalidRequest
        case .encodingFailed: .encodingFailed
        case .file: .file
        case .transport: .transport
        case .tls: .tls
        case .timedOut: .timedOut
        case .unsupportedConfiguration: .unsupportedConfiguration
        case .unacceptableStatusCode: .unacceptableStatusCode
        case .invalidResponse: .invalidResponse
        case .malformedResponse: .malformedResponse
        case .incompleteResponse: .incompleteResponse
        case .decodingFailed: .decodingFailed
        case .tooManyRedirects: .tooManyRedirects
        case .responseTooLarge: .responseTooLarge
        case .insecureRedirect: .insecureRedirect
        case .proxyRefused: .proxyRefused
        case .notCached: .notCached
        case .lineTooLong: .lineTooLong
        case .lineDecodingFailed: .lineDecodingFailed
        case .eventStreamRefused: .eventStreamRefused
        case .compressionFailed: .compressionFailed
        case .throttled: .throttled
        case .crossOriginPage: .crossOriginPage
        case .repeatedPage: .repeatedPage
        case .webSocketRefused: .webSocketRefused
        case .webSocketClosed: .webSocketClosed
        case .webSocketProtocolViolation: .webSocketProtocolViolation
        case .webSocketUnresponsive: .webSocketUnresponsive
        case .webSocketMessageDecodingFailed: .webSocketMessageDecodingFailed
        }
    }
}
