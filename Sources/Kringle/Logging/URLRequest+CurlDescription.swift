import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// A `curl` command line that sends this request, with sensitive headers redacted.
    ///
    /// ```swift
    /// print(request.curlDescription)
    /// // curl -X 'POST' 'https://cats.example/cats' -H 'Authorization: <redacted>' --data-binary '{"name":"Tom"}'
    /// ```
    public var curlDescription: String {
        curlDescription(redacting: NetworkClient.Configuration.defaultRedactedHeaders)
    }

    /// A `curl` command line that sends this request.
    ///
    /// - Parameter redacted: Header names (case-insensitive) whose values are replaced by
    ///   `<redacted>`; pass `[]` to show everything.
    public func curlDescription(redacting redacted: Set<String>) -> String {
        var parts = ["curl"]
        let method = httpMethod ?? "GET"
        switch method {
        case "GET": break
        case "HEAD": parts.append("--head")  // `-X HEAD` would make curl wait for a body
        default: parts.append("-X \(Self.quoted(method))")
        }
        parts.append(Self.quoted(url?.absoluteString ?? ""))
        for field in kringleHeaders.redacting(redacted) {
            parts.append("-H \(Self.quoted("\(field.name): \(field.value)"))")
        }
        if let body = httpBody, !body.isEmpty {
            if let text = String(data: body, encoding: .utf8) {
                parts.append("--data-binary \(Self.quoted(text))")
            } else {
                parts.append("--data-binary '<\(body.count) bytes of binary data>'")
            }
        }
        return parts.joined(separator: " ")
    }

    /// Single-quoted for a POSIX shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
