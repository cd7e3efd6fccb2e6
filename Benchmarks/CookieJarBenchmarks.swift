import Foundation
import Kringle

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Compares Kringle's ``CookieJar`` with Foundation's `HTTPCookieStorage` in one run.
///
/// Run in release mode: `swift run -c release kringle-benchmarks`.
///
/// - Lookup: the `Cookie` header for a request, with 3,000 cookies over 500 domains and
///   with 10 cookies over 2 domains (each lookup matches about 5-6 cookies either way),
///   against `HTTPCookieStorage.cookies(for:)` + `HTTPCookie.requestHeaderFields(with:)`.
/// - Parsing: 100,000 `Set-Cookie` strings through `CookieJar.store` (parse and store)
///   against `HTTPCookie.cookies(withResponseHeaderFields:for:)` (parse only).
///
/// Foundation's storage is a fresh in-memory instance
/// (`URLSessionConfiguration.ephemeral.httpCookieStorage`) when the platform gives one,
/// else `HTTPCookieStorage.shared` emptied first. The lookup cookies are session cookies
/// and both stores live in memory, so neither side touches the disk.
func runCookieJarBenchmarks() {
    let now = Date()
    var rows: [BenchmarkRow] = []

    for (domains, perDomain) in [(500, 6), (2, 5)] {
        let total = domains * perDomain
        let responses = makeResponses(domains: domains, cookiesPerDomain: perDomain)
        let requests = (0..<2_000).map { index in
            url("https://www.domain\((index &* 7_919) % domains).example/app/page")
        }

        let jar = CookieJar()
        for response in responses {
            jar.store(setCookieHeaders: response.headers, from: response.url, now: now)
        }
        let storage = freshFoundationStorage()
        for response in responses {
            let cookies = HTTPCookie.cookies(
                withResponseHeaderFields: ["Set-Cookie": response.headers.joined(separator: ", ")],
                for: response.url)
            storage.setCookies(cookies, for: response.url, mainDocumentURL: nil)
        }

        var sink = 0
        let kringle = measure(iterations: 50_000) { index in
            sink &+= jar.cookieHeader(for: requests[index % requests.count], now: now)?.utf8.count ?? 0
        }
        let foundation = measure(iterations: total > 100 ? 2_000 : 50_000) { index in
            let cookies = storage.cookies(for: requests[index % requests.count]) ?? []
            sink &+= HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]?.utf8.count ?? 0
        }
        rows.append(
            BenchmarkRow(
                name: "cookieHeader, \(total) cookies / \(domains) domains",
                kringle: kringle, foundation: foundation, sink: sink,
                check: "jar \(jar.allCookies.count), Foundation \(storage.cookies?.count ?? 0)"))
    }

    // Parsing 100,000 Set-Cookie strings.
    let headers = (0..<100_000).map(makeSetCookie)
    let origins = (0..<500).map { url("https://www.domain\($0).example/app/page") }
    let parseJar = CookieJar()
    var parsed = 0
    let kringleParse = measure(iterations: headers.count) { index in
        parseJar.store(setCookieHeaders: [headers[index]], from: origins[index % origins.count], now: now)
    }
    let foundationParse = measure(iterations: headers.count) { index in
        parsed &+=
            HTTPCookie.cookies(
                withResponseHeaderFields: ["Set-Cookie": headers[index]],
                for: origins[index % origins.count]
            ).count
    }
    rows.append(
        BenchmarkRow(
            name: "parse 100,000 Set-Cookie", kringle: kringleParse, foundation: foundationParse,
            sink: parsed, check: "jar \(parseJar.allCookies.count), Foundation parsed \(parsed)"))

    print(BenchmarkRow.table(rows))
}

/// One line of the result table.
private struct BenchmarkRow {
    let name: String
    let kringle: Measurement
    let foundation: Measurement
    let sink: Int
    let check: String

    static func table(_ rows: [BenchmarkRow]) -> String {
        var lines = [
            "| benchmark | Kringle per op | Foundation per op | Foundation / Kringle | sanity |",
            "|---|---:|---:|---:|---|",
        ]
        for row in rows {
            let ratio = row.foundation.perOperation / row.kringle.perOperation
            lines.append(
                "| \(row.name) | \(format(row.kringle)) | \(format(row.foundation)) | "
                    + "\(String(format: "%.1f", ratio))x | \(row.check) |")
        }
        return lines.joined(separator: "\n")
    }

    private static func format(_ measurement: Measurement) -> String {
        let micros = measurement.perOperation * 1e6
        let total = measurement.total * 1e3
        return String(format: "%.2f µs (%d ops, %.0f ms)", micros, measurement.iterations, total)
    }
}

/// Wall-clock time of a loop.
private struct Measurement {
    let iterations: Int
    let total: Double
    var perOperation: Double { total / Double(iterations) }
}

private func measure(iterations: Int, _ body: (Int) -> Void) -> Measurement {
    let clock = ContinuousClock()
    let elapsed = clock.measure {
        for index in 0..<iterations { body(index) }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Measurement(iterations: iterations, total: seconds)
}

/// A response: its URL and the Set-Cookie headers it carries.
private struct Response {
    let url: URL
    let headers: [String]
}

private func makeResponses(domains: Int, cookiesPerDomain: Int) -> [Response] {
    (0..<domains).map { domain in
        let headers = (0..<cookiesPerDomain).map { index -> String in
            switch index % 3 {
            case 0: return "session\(index)=value\(domain)x\(index); Path=/"
            case 1: return "pref\(index)=v\(index); Domain=domain\(domain).example; Path=/app"
            default: return "id\(index)=\(domain * 31 + index); Path=/; HttpOnly"
            }
        }
        return Response(url: url("https://www.domain\(domain).example/app/login"), headers: headers)
    }
}

private func makeSetCookie(_ index: Int) -> String {
    let name = "c\(index % 6)"
    switch index % 4 {
    case 0: return "\(name)=value\(index); Path=/; HttpOnly"
    case 1: return "\(name)=\(index); Domain=domain\(index % 500).example; Path=/app; Secure"
    case 2: return "\(name)=abc\(index); Path=/; SameSite=Lax"
    default: return "\(name)=xyz\(index); Path=/app/page; Expires=Wed, 21 Oct 2037 07:28:00 GMT"
    }
}

private func freshFoundationStorage() -> HTTPCookieStorage {
    if let storage = URLSessionConfiguration.ephemeral.httpCookieStorage { return storage }
    let shared = HTTPCookieStorage.shared
    for cookie in shared.cookies ?? [] { shared.deleteCookie(cookie) }
    return shared
}

private func url(_ string: String) -> URL {
    URL(string: string) ?? URL(fileURLWithPath: "/")
}
