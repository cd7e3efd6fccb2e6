import Foundation

/// An HTTP server on a Unix domain socket, named by a URL: `http+unix://` (or `https+unix://`
/// for TLS over the socket), then the socket's file system path, percent-encoded, as the
/// URL's host, then the request's path and query as for any HTTP URL.
///
/// ```swift
/// // GET /containers/json on the Docker Engine's socket, /var/run/docker.sock:
/// let url = URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json")!
/// UnixSocketURL(url)?.socketPath  // "/var/run/docker.sock"
///
/// // The base URL of an endpoint, from a path:
/// UnixSocketURL(socketPath: "/run/podman/podman.sock").url  // http+unix://%2Frun%2Fpodman%2Fpodman.sock
/// ```
///
/// The form is the one AsyncHTTPClient and Python's requests-unixsocket take, so a URL
/// written for either works here. Everything about the URL but where the connection goes
/// is as for `http` and `https`: a relative redirect stays on the socket, cookies are kept
/// for the URL's host (the encoded path) and the cache keys responses by the whole URL.
/// Only ``CurlTransport`` can send such a URL; `URLSessionTransport` refuses it with
/// ``KringleError/unsupportedConfiguration(_:)``.
///
/// The request names the host `localhost` (`Host: localhost`, as `curl --unix-socket`
/// sends): HTTP/1.1 requires a `Host` field (RFC 9112 §3.2) and a server behind a socket
/// has no name of its own. Set a `Host` header on the endpoint to send another. Over
/// `https+unix` the server's certificate is checked against `localhost` as well.
///
/// Linux's abstract socket namespace (a path starting with a NUL byte) is not supported.
public struct UnixSocketURL: Sendable, Hashable {
    /// The socket's file system path, such as `/var/run/docker.sock`.
    public let socketPath: String

    /// Whether the connection speaks TLS over the socket: `https+unix`.
    public let usesTLS: Bool

    /// The longest socket path, in bytes: `sun_path` of `struct sockaddr_un` holds 108 bytes
    /// on Linux (104 on Apple platforms), its last one the terminating NUL.
    public static let maximumPathLength: Int = {
        #if canImport(Darwin)
        return 103
        #else
        return 107
        #endif
    }()

    /// The two schemes, in lower case.
    static let plainScheme = "http+unix"
    static let tlsScheme = "https+unix"

    /// Reads the socket from an `http+unix` or `https+unix` URL (the scheme in any case).
    ///
    /// - Parameter url: a URL such as `http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json`.
    /// - Returns: `nil` when the scheme is another one, the host is empty, or the URL names a
    ///   port or user information, which a socket has no use for.
    public init?(_ url: URL) {
        guard let scheme = url.scheme, let usesTLS = Self.usesTLS(scheme: scheme),
            let host = url.host(percentEncoded: false), !host.isEmpty,
            url.port == nil, url.user == nil, url.password == nil
        else { return nil }
        self.socketPath = host
        self.usesTLS = usesTLS
    }

    /// Names the socket at `socketPath`.
    ///
    /// - Parameters:
    ///   - socketPath: the socket's file system path, such as `/var/run/docker.sock`.
    ///   - usesTLS: whether to speak TLS over the socket (`https+unix`); `false` by default.
    public init(socketPath: String, usesTLS: Bool = false) {
        self.socketPath = socketPath
        self.usesTLS = usesTLS
    }

    /// The socket's root URL, such as `http+unix://%2Fvar%2Frun%2Fdocker.sock`: the base URL
    /// of an ``Endpoint``. Every byte of the path but letters, digits, `-`, `.`, `_` and `~`
    /// is percent-encoded (RFC 3986 §2.3), `/` included.
    public var url: URL {
        // Only unreserved characters and escapes remain, which always form a valid URL.
        URL(string: (usesTLS ? Self.tlsScheme : Self.plainScheme) + "://" + encodedHost)!
    }

    /// The path as the URL's host: percent-encoded, hex digits in upper case (RFC 3986 §2.1),
    /// so that one socket has one spelling (the cookie jar's host, the cache's key).
    var encodedHost: String {
        var encoded = ""
        encoded.reserveCapacity(socketPath.utf8.count * 2)
        for byte in socketPath.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(Self.hexDigits[Int(byte >> 4)])
                encoded.unicodeScalars.append(Self.hexDigits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    /// What the server behind the socket is asked for: `http://localhost` (`https` over
    /// TLS) with `url`'s path (`/` when it has none) and query, percent-encoding intact, and
    /// no fragment, which never leaves the client. libcurl is given it with the socket, and
    /// `curl --unix-socket` takes it the same way.
    func localhostURL(for url: URL) -> String {
        let path = url.path(percentEncoded: true)
        let query = url.query(percentEncoded: true).map { "?" + $0 } ?? ""
        return (usesTLS ? "https://localhost" : "http://localhost") + (path.isEmpty ? "/" : path) + query
    }

    /// Why this socket cannot be connected to, or `nil`: a path that `sockaddr_un` cannot
    /// hold (libcurl would fail later, with a less clear message) or that holds a NUL byte
    /// (which would end it early).
    var problem: String? {
        if socketPath.utf8.contains(0) {
            return "The Unix socket path in an http+unix URL holds a NUL byte (abstract sockets are not supported)."
        }
        if socketPath.utf8.count > Self.maximumPathLength {
            return
                "The Unix socket path \"\(socketPath)\" is \(socketPath.utf8.count) bytes long; a socket address holds at most \(Self.maximumPathLength)."
        }
        return nil
    }

    /// Whether `url` names a Unix socket, by its scheme alone.
    ///
    /// Cheap enough for every request: `http` and `https` are told apart by their length
    /// before any byte is compared, and no string is lowercased.
    package static func isUnixSocket(_ url: URL) -> Bool {
        guard let scheme = url.scheme else { return false }
        return usesTLS(scheme: scheme) != nil
    }

    /// `false` for `http+unix`, `true` for `https+unix` (in any case), `nil` for any other
    /// scheme.
    static func usesTLS(scheme: String) -> Bool? {
        let count = scheme.utf8.count
        // "http" and "https" are 4 and 5 bytes long: they leave here at once.
        guard count == 9 || count == 10 else { return nil }
        if scheme.equalsIgnoringASCIICase(plainScheme) { return false }
        if scheme.equalsIgnoringASCIICase(tlsScheme) { return true }
        return nil
    }
}
