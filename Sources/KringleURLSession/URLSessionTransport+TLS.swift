import Foundation
@_spi(KringleInternals) import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Which part of TLS a URLSession error is about, or `nil` when it is not about TLS.
    ///
    /// Apple's URLSession says it in the code (`serverCertificateHasBadDate` and so on). On
    /// Linux, FoundationNetworking (Swift 6.3) reports a failed certificate verification as
    /// `NSURLErrorUnknown` (-1), not -1202, with libcurl's error buffer as the localized
    /// description ("SSL certificate problem: certificate has expired"); that text is read
    /// as ``/KringleCore/CurlTransport`` reads it.
    static func tlsFailure(for error: URLError) -> TLSFailure? {
        let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        switch error.code {
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return .expiredCertificate
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return message.isEmpty ? .untrustedCertificate : .verification(describedBy: message)
        case .clientCertificateRejected:
            return .clientCertificateRejected
        case .clientCertificateRequired:
            return .clientCertificateRequired
        case .secureConnectionFailed:
            return .alert(describedBy: message) ?? .other
        case .unknown:
            if message.hasPrefix("SSL certificate problem") || message.hasPrefix("SSL: ") {
                return .verification(describedBy: message)
            }
            return .alert(describedBy: message)
        default:
            return nil
        }
    }
}
