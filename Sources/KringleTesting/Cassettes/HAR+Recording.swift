import Foundation
@_spi(KringleInternals) import KringleCore
@_spi(KringleInternals) import KringlePromise

extension HAR.Entry {
    /// The entry a cassette records for `exchange`, its secrets hidden by `redaction`.
    init(_ exchange: RecordedExchange, redaction: CassetteRedaction) {
        let url = redaction.url(exchange.request.url)
        let requestFields = exchange.request.headers.map { (name: $0.name, value: $0.value) }
        var request = HAR.Request(
            method: exchange.request.method.rawValue, url: url.absoluteString,
            cookies: HAR.requestCookies(requestFields, redaction: redaction),
            headers: redaction.headers(requestFields).map { HAR.NameValue(name: $0.name, value: $0.value) },
            queryString: (URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []).map {
                HAR.NameValue(name: $0.name, value: $0.value ?? "")
            },
            bodySize: exchange.requestBody.count)
        let requestType = requestFields.last { $0.name.lowercased() == "content-type" }?.value
        if !exchange.requestBody.isEmpty {
            let body = redaction.body(exchange.requestBody, isRequest: true, url: url, contentType: requestType)
            request.postData = HAR.PostData(body: body, mimeType: requestType ?? "")
        }
        let started: Date
        var response: HAR.Response
        var timings = HAR.Timings()
        var time = 0.0
        var serverAddress: String?
        var connection: String?
        switch exchange.outcome {
        case .success(let (received, body)):
            let metrics = received.metrics
            started = metrics?.start ?? exchange.started
            let version = metrics?.httpVersion?.rawValue ?? "HTTP/1.1"
            request.httpVersion = version
            response = HAR.Response(received, body: body, httpVersion: version, url: url, redaction: redaction)
            if let metrics {
                timings = HAR.Timings(metrics)
                time = metrics.total * 1000
                serverAddress = metrics.remoteAddress
                connection = metrics.remotePort.map(String.init)
            }
        case .failure(let error):
            started = exchange.started
            // Chrome's own convention for a request that got no response: status 0, and the
            // error in the response's `_error`. Kringle's own fields on the error go beside it.
            response = HAR.Response(status: 0, httpVersion: "")
            response.custom[HAR.Failure.errorField] = .string(redaction.rules.redacting(error).description)
            if case KringleError.timedOut(let phase) = error {
                response.custom[HAR.Failure.kindField] = .string("timedOut")
                response.custom[HAR.Failure.timeoutPhaseField] = .string(phase.rawValue)
            }
        }
        self.init(
            startedDateTime: HAR.string(from: started), time: time, request: request, response: response,
            timings: timings, serverIPAddress: serverAddress, connection: connection)
    }
}

extension HAR.Response {
    /// `response` as a cassette records it.
    fileprivate init(_ response: HTTPResponse, body: Data, httpVersion: String, url: URL, redaction: CassetteRedaction)
    {
        let fields = response.headers.fields.map { (name: $0.name, value: $0.value) }
        let redacted = redaction.headers(fields)
        let contentType = response.headers["Content-Type"]
        let recordedBody = redaction.body(body, isRequest: false, url: url, contentType: contentType)
        var custom: [String: HARValue] = [:]
        if !response.trailers.isEmpty {
            custom["_trailers"] = .array(
                redaction.headers(response.trailers.fields.map { (name: $0.name, value: $0.value) }).map {
                    .object(["name": .string($0.name), "value": .string($0.value)])
                })
        }
        self.init(
            status: response.statusCode, statusText: HTTPStatus.reasonPhrase(for: response.statusCode),
            httpVersion: httpVersion,
            cookies: fields.filter { $0.name.lowercased() == "set-cookie" }.map {
                HAR.Cookie(setCookie: $0.value, hidingValue: redaction.hidesHeader("Set-Cookie"))
            },
            headers: redacted.map { HAR.NameValue(name: $0.name, value: $0.value) },
            content: HAR.Content(body: recordedBody, mimeType: contentType ?? ""),
            redirectURL: redacted.last { $0.name.lowercased() == "location" }?.value ?? "",
            bodySize: response.metrics?.responseBytes == nil ? -1 : body.count, custom: custom)
    }
}

extension HAR.Timings {
    /// The phases of `metrics`, whose moments are durations from its start, as HAR's
    /// consecutive durations in milliseconds (HAR 1.2 §timings: `ssl` is part of `connect`).
    init(_ metrics: TransferMetrics) {
        func milliseconds(_ from: TimeInterval?, _ to: TimeInterval?) -> Double {
            guard let from, let to, to >= from else { return -1 }
            return ((to - from) * 1_000_000).rounded() / 1000
        }
        let connected = metrics.secureConnect ?? metrics.connect
        let ready = metrics.requestSent ?? connected ?? metrics.domainLookup ?? 0
        self.init(
            dns: milliseconds(0, metrics.domainLookup),
            connect: milliseconds(metrics.domainLookup ?? 0, connected),
            send: 0,
            wait: max(0, milliseconds(ready, metrics.firstResponseByte)),
            receive: max(0, milliseconds(metrics.firstResponseByte ?? ready, metrics.total)),
            ssl: milliseconds(metrics.connect, metrics.secureConnect))
    }
}

extension HAR {
    /// The cookies of a request's `Cookie` fields (RFC 6265 §4.2.1), values hidden when the
    /// rules hide the field.
    fileprivate static func requestCookies(
        _ fields: [(name: String, value: String)], redaction: CassetteRedaction
    ) -> [Cookie] {
        let hides = redaction.hidesHeader("Cookie")
        return fields.filter { $0.name.lowercased() == "cookie" }.flatMap { field in
            field.value.split(separator: ";").map { pair in
                let (name, value) = HAR.cookiePair(pair)
                return Cookie(name: name, value: hides ? Redaction.placeholder : value)
            }
        }
    }
}

extension HAR {
    /// The name and value of a `name=value` pair; a pair without `=` is all value, as
    /// browsers read it (RFC 6265bis §5.6).
    fileprivate static func cookiePair(_ pair: some StringProtocol) -> (name: String, value: String) {
        guard let equals = pair.firstIndex(of: "=") else { return ("", pair.trimmingCharacters(in: .whitespaces)) }
        return (
            pair[..<equals].trimmingCharacters(in: .whitespaces),
            pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        )
    }
}

extension HAR.Cookie {
    /// The cookie a `Set-Cookie` line sets (RFC 6265 §5.2), its value hidden if asked.
    fileprivate init(setCookie line: String, hidingValue: Bool) {
        let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let (name, value) = HAR.cookiePair(parts.first ?? "")
        self.init(name: name, value: hidingValue ? Redaction.placeholder : value)
        for attribute in parts.dropFirst() {
            let nameAndValue = attribute.split(separator: "=", maxSplits: 1).map(String.init)
            let value = nameAndValue.count > 1 ? nameAndValue[1] : ""
            switch nameAndValue.first?.lowercased() ?? "" {
            case "path": path = value
            case "domain": domain = value
            case "expires": setExpires(value)
            case "httponly": httpOnly = true
            case "secure": secure = true
            case "samesite": custom["_sameSite"] = .string(value)
            default: break
            }
        }
    }

    /// HAR 1.2 writes `expires` in ISO 8601; the attribute is read as the cookie jar reads it
    /// (RFC 6265 §5.1.1). One no jar could read is kept as it was, in `_expires`.
    private mutating func setExpires(_ value: String) {
        guard let date = CookieDateParser.parse(value) else {
            custom["_expires"] = .string(value)
            return
        }
        expires = HAR.string(from: date)
    }
}
