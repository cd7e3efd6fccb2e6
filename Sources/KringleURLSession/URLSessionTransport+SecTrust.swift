#if canImport(Security)
import CryptoKit
import Foundation
@_spi(KringleInternals) import KringleCore
import Security

extension URLSessionTransport.ServerTrust {
    /// Evaluates a server's trust for `host` against these authorities and pins; `nil` when
    /// the server is to be trusted, else why not.
    func evaluate(_ trust: SecTrust, host: String) -> TLSFailure? {
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
        if !certificateAuthorities.isEmpty {
            let anchors = certificateAuthorities.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
            guard anchors.count == certificateAuthorities.count else { return .certificateAuthoritiesUnusable }
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, true)
        }
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else {
            switch error.map(CFErrorGetCode) {
            case Int(errSecCertificateExpired)?: return .expiredCertificate
            case Int(errSecHostNameMismatch)?: return .hostnameMismatch
            default: return .untrustedCertificate
            }
        }
        guard !pinnedPublicKeys.isEmpty else { return nil }
        guard let key = SecTrustCopyKey(trust), let pin = Self.pin(of: key), pinnedPublicKeys.contains(pin) else {
            return .pinMismatch
        }
        return nil
    }

    /// The pin of a key: SHA-256 of its SubjectPublicKeyInfo, rebuilt from the raw key.
    private static func pin(of key: SecKey) -> PublicKeyPin? {
        guard let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
            let type = attributes[kSecAttrKeyType] as? String,
            let bits = attributes[kSecAttrKeySizeInBits] as? Int,
            let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?
        else { return nil }
        let algorithm: SubjectPublicKeyInfoPrefix.Algorithm
        switch type {
        case kSecAttrKeyTypeECSECPrimeRandom as String: algorithm = .ellipticCurve
        case kSecAttrKeyTypeRSA as String: algorithm = .rsa
        default: return nil
        }
        guard let prefix = SubjectPublicKeyInfoPrefix.bytes(for: algorithm, bits: bits) else { return nil }
        return PublicKeyPin(sha256: Data(SHA256.hash(data: Data(prefix) + raw)))
    }
}
#endif
