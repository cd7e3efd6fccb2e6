import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Failures map to KringleError as the Transport contract says.
@Suite(.generousTimeLimit) struct CurlErrorTests {
    @Test func subSecondTimeoutRejectsWithTimedOut() async throws {
        let server = try LoopbackServer { _ in .text("late").heldUntilHangUp() }
        defer { server.shutdown() }
        // Created first, so that loading libcurl is not part of the time measured.
        let transport = CurlTransport()
        let request = makeRequest(server.url("/slow"), timeout: 0.3)

        // Timed to a handler on a queue of its own, not through a thread blocked in wait():
        // that thread runs other tests' promise jobs while it waits, for as long as they take.
        let (result, elapsed) = await SettlementTimer.measure { transport.send(request) }

        guard case .failure(KringleError.timedOut) = result else {
            Issue.record("expected KringleError.timedOut, got \(result)")
            return
        }
        // Real time: libcurl's own timer, which no clock of Kringle's drives. It cannot fire
        // early; how late a loaded machine lets it fire says nothing about the transport (the
        // millisecond precision itself is CurlRequestPlanTests' to check).
        #expect(elapsed >= .milliseconds(290))
        #expect(elapsed < .seconds(10))
    }

    @Test func connectionRefusedIsATransportError() async throws {
        let port = try refusedPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))

        let result = await CurlTransport().send(makeRequest(url)).outcome()

        guard case .failure(KringleError.transport(let underlying)) = result, let curl = underlying as? CurlError else {
            Issue.record("expected KringleError.transport(CurlError), got \(result)")
            return
        }
        #expect(curl.code == CurlError.couldNotConnect)
        #expect(curl.message.contains("\(port)"))
        // RetryPolicy may resend it: the request never reached a server.
        #expect(curl.requestNeverCompleted)
    }

    @Test func truncatedBodyIsAnIncompleteResponse() async throws {
        let server = try LoopbackServer { _ in .text(String(repeating: "x", count: 10_000)).withBehavior(.closeMidBody)
        }
        defer { server.shutdown() }

        let result = await CurlTransport().send(makeRequest(server.url("/"))).outcome()

        guard case .failure(KringleError.incompleteResponse(_, 5_000, 10_000, let underlying)) = result else {
            Issue.record("expected KringleError.incompleteResponse after 5,000 of 10,000 bytes, got \(result)")
            return
        }
        #expect((underlying as? CurlError)?.code == CurlError.partialFile)
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd"])
    func nonHTTPSchemeIsAnInvalidRequest(url: String) async throws {
        let request = makeRequest(try #require(URL(string: url)))

        let result = await CurlTransport().send(request).outcome()

        guard case .failure(KringleError.invalidRequest) = result else {
            Issue.record("expected KringleError.invalidRequest, got \(result)")
            return
        }
    }

    @Test func headerNameThatIsNotATokenIsAnInvalidRequest() async throws {
        let server = try LoopbackServer { _ in .status(204) }
        defer { server.shutdown() }
        // HTTPRequest itself drops values with line breaks, but keeps this name.
        let request = makeRequest(server.url("/"), headers: ["Bad Name": "v"])

        let result = await CurlTransport().send(request).outcome()

        guard case .failure(KringleError.invalidRequest) = result else {
            Issue.record("expected KringleError.invalidRequest, got \(result)")
            return
        }
        #expect(server.statistics.requestsReceived == 0)
    }

    @Test func unavailableLibraryRejectsWithTheNamesTried() async throws {
        let failure = CurlError(
            code: CurlError.failedInitialization, message: "libcurl could not be loaded; tried libcurl.so.4 (not found)"
        )
        let transport = CurlTransport(configuration: .init(), library: .failure(failure))

        let result = await transport.send(makeRequest(try #require(URL(string: "http://127.0.0.1:1/")))).outcome()

        guard case .failure(KringleError.transport(let underlying)) = result else {
            Issue.record("expected KringleError.transport, got \(result)")
            return
        }
        #expect(underlying as? CurlError == failure)
        #expect("\(KringleError.transport(underlying))".contains("libcurl.so.4"))
    }

    @Test func probeReportsEveryNameTried() {
        let (opened, report) = CurlLibrary.probe(["libkringle-missing-1.so", "libkringle-missing-2.so"])

        #expect(opened == nil)
        #expect(report.contains("libkringle-missing-1.so"))
        #expect(report.contains("libkringle-missing-2.so"))
    }
}
