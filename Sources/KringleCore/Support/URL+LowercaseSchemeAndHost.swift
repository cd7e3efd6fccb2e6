import Foundation

extension URL {
    /// This URL with its scheme and host in lower case: RFC 3986 §6.2.2.1 makes both
    /// case-insensitive, so this is the same resource. A server may well send
    /// `Location: HTTP://Example.com/next` (§3.1 allows it), and an endpoint may name its
    /// base URL so, but FoundationNetworking refuses a scheme in upper case (`URLError`
    /// -1002, unsupported URL). The rest of the URL is case-sensitive and left alone,
    /// percent-escapes in the host included (§6.2.2.1 prefers their hex digits in upper case).
    /// The host of an `http+unix` URL (``UnixSocketURL``) is a socket's path and keeps its case.
    func withLowercaseSchemeAndHost() -> URL {
        // Most URLs are in lower case already: those are not taken apart.
        guard let scheme,
            scheme.contains(where: \.isUppercase) || host?.contains(where: \.isUppercase) == true,
            var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        else { return self }
        components.scheme = scheme.lowercased()
        // A Unix socket's host is a file system path, whose case matters (issue 32).
        if let host = components.percentEncodedHost, !UnixSocketURL.isUnixSocket(self) {
            components.percentEncodedHost = Self.lowercasedOutsideEscapes(host)
        }
        return components.url ?? self
    }

    /// `text` with its ASCII letters in lower case, except the two hex digits after each `%`.
    private static func lowercasedOutsideEscapes(_ text: String) -> String {
        var result = ""
        var escapeDigitsLeft = 0
        for character in text {
            if character == "%" {
                escapeDigitsLeft = 2
                result.append(character)
            } else if escapeDigitsLeft > 0 {
                escapeDigitsLeft -= 1
                result.append(character)
            } else {
                result.append(character.isASCII ? Character(character.lowercased()) : character)
            }
        }
        return result
    }
}
