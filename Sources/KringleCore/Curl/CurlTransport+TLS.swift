import Foundation

extension CurlTransport {
    /// The lowest TLS version a ``CurlTransport`` accepts (`CURLOPT_SSLVERSION`); the
    /// highest is whatever libcurl's TLS library supports.
    public enum TLSVersion: Sendable, Hashable, CaseIterable {
        /// TLS 1.2 (RFC 5246), the default: TLS 1.0 and 1.1 are deprecated (RFC 8996).
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // (Spelled as the protocol is: `tls12` would read as a version twelve.)
        case tls1_2
        /// TLS 1.3 (RFC 8446) only.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        case tls1_3
    }

    /// A client certificate and its private key, for servers that ask for one (mutual TLS,
    /// RFC 8446 §4.3.2): each from a PEM file or from PEM data in memory.
    ///
    /// ```swift
    /// configuration.clientCertificate = .init(
    ///     certificate: .file("/etc/kringle/client.pem"),
    ///     key: .file("/etc/kringle/client.key"),
    ///     keyPassword: secrets.keyPassword)
    /// ```
    ///
    /// Its description shows where the certificate and key come from, never the key's bytes
    /// or its password.
    public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        /// Where PEM material comes from.
        public enum Source: Sendable, Hashable {
            /// A PEM file at this path, read by libcurl when it connects (`CURLOPT_SSLCERT`,
            /// `CURLOPT_SSLKEY`).
            case file(String)
            /// PEM data, handed to libcurl in memory (`CURLOPT_SSLCERT_BLOB`,
            /// `CURLOPT_SSLKEY_BLOB`, libcurl 7.71 or later).
            case pem(Data)
        }

        /// The certificate (the leaf first; intermediates may follow it in the same PEM).
        public var certificate: Source
        /// The private key; `nil` when it is in the certificate's PEM too.
        public var key: Source?
        /// The password of an encrypted key (`CURLOPT_KEYPASSWD`); `nil` for a plain key.
        public var keyPassword: String?

        /// Creates a client certificate.
        ///
        /// - Parameters:
        ///   - certificate: the certificate's PEM.
        ///   - key: the private key's PEM; `nil` when the certificate's PEM holds it.
        ///   - keyPassword: the key's password, when it is encrypted.
        public init(certificate: Source, key: Source?, keyPassword: String? = nil) {
            self.certificate = certificate
            self.key = key
            self.keyPassword = keyPassword
        }

        /// Where the certificate and key come from, such as
        /// "client certificate /etc/client.pem, key (PEM data, 241 bytes), password set".
        public var description: String {
            let key = self.key.map { ", key \(Self.describe($0))" } ?? ""
            return "client certificate \(Self.describe(certificate))\(key)\(keyPassword == nil ? "" : ", password set")"
        }

        /// The same as ``description``: no key material or password.
        public var debugDescription: String { description }

        private static func describe(_ source: Source) -> String {
            switch source {
            case .file(let path): return path
            case .pem(let data): return "(PEM data, \(data.count) bytes)"
            }
        }
    }
}
