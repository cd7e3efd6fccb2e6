import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// A table row for jar-level tests: some `Set-Cookie` batches, then one request.
struct JarScenario: Sendable, CustomTestStringConvertible {
    /// One response: its URL, its headers, and when it arrived (seconds after the pinned clock).
    struct Response: Sendable {
        let url: String
        let headers: [String]
        let at: TimeInterval
    }

    let name: String
    let responses: [Response]
    let request: String
    let expected: String?

    var testDescription: String { name }

    /// A scenario whose responses all arrive at the pinned time.
    init(_ name: String, _ responses: [(String, [String])], request: String, expected: String?) {
        self.name = name
        self.responses = responses.map { Response(url: $0.0, headers: $0.1, at: 0) }
        self.request = request
        self.expected = expected
    }

    /// A scenario with explicit arrival times.
    init(_ name: String, timed responses: [(String, [String], TimeInterval)], request: String, expected: String?) {
        self.name = name
        self.responses = responses.map { Response(url: $0.0, headers: $0.1, at: $0.2) }
        self.request = request
        self.expected = expected
    }

    /// Runs the scenario on a fresh jar; the request happens one second after the last response.
    func run() -> String? {
        let jar = CookieJar()
        for response in responses {
            jar.store(
                setCookieHeaders: response.headers, from: TestSupport.url(response.url),
                now: TestSupport.now.addingTimeInterval(response.at))
        }
        let last = responses.map(\.at).max() ?? 0
        return jar.header(request, now: TestSupport.now.addingTimeInterval(last + 1))
    }
}
