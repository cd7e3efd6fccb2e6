import Foundation

extension HTTPRequest {
    /// A `curl` command line that sends this request, with secrets redacted (``Redaction/default``)
    /// and without its body.
    ///
    /// ```swift
    /// print(request.curlDescription)
    /// // curl -X 'POST' 'https://cats.example/cats?api_key=***' -H 'Authorization: ***'
    /// ```
    ///
    /// A request to a Unix socket (``UnixSocketURL``) names the socket as curl wants it:
    /// `curl --unix-socket '/var/run/docker.sock' 'http://localhost/containers/json'`.
    public var curlDescription: String {
        curlDescription()
    }

    /// A `curl` command line that sends this request.
    ///
    /// - Parameters:
    ///   - redaction: What to hide: header values, query item values and the URL's password.
    ///     ``Redaction/disabled`` shows everything.
    ///   - includingBody: Whether to show the body too (`--data-binary`); bodies often hold
    ///     secrets or personal data, so they are left out unless asked for. A compressed body
    ///     (one with `Content-Encoding`) is never shown: the command reads it from standard
    ///     input (`--data-binary @-`).
    public func curlDescription(redacting redaction: Redaction = .default, includingBody: Bool = false) -> String {
        var parts = ["curl"]
        let method = method.rawValue
        switch method {
        case "GET": break
        case "HEAD": parts.append("--head")  // `-X HEAD` would make curl wait for a body
        case let method: parts.append("-X \(Self.quoted(method))")
        }
        if let socket = UnixSocketURL(url), let local = URL(string: socket.localhostURL(for: url)) {
            // Unix domain sockets (issue 32): curl takes the socket apart from the URL.
            parts.append("--unix-socket \(Self.quoted(socket.socketPath))")
            parts.append(Self.quoted(redaction.redacting(local).description))
        } else {
            parts.append(Self.quoted(redaction.redacting(url).description))
        }
        for field in redaction.redacting(headers).value {
            parts.append("-H \(Self.quoted("\(field.name): \(field.value)"))")
        }
        if let body, !body.isEmpty {
            if let coding = headers["Content-Encoding"] {
                // Compressed bytes are not text: the command reads them from standard input,
                // and a shell comment (last, so it ends the line) says what to pipe in.
                let name = coding.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "," || $0 == " " }
                parts.append("--data-binary @- # pipe in the \(body.count) bytes of the \(name)-compressed body")
            } else if !includingBody {
                parts.append("--data-binary '<\(body.count) bytes of body left out>'")
            } else if let text = String(data: body, encoding: .utf8) {
                parts.append("--data-binary \(Self.quoted(text))")
            } else {
                parts.append("--data-binary '<\(body.count) bytes of binary data>'")
            }
        }
        return parts.joined(separator: " ")
    }

    /// Single-quoted for a POSIX shell. Scalar by scalar: a quote that a combining mark
    /// follows is one `Character` with it, which a `Character`-wise replacement would miss,
    /// ending the quoting early and letting the rest run as commands.
    private static func quoted(_ text: String) -> String {
        var quoted = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" { quoted += #"'\''"# } else { quoted.unicodeScalars.append(scalar) }
        }
        return quoted + "'"
    }
}
