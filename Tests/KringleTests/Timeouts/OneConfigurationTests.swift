import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One client configuration means the same on every transport: with every time limit set,
/// requests succeed on each; what a transport cannot honour is reported once, never a
/// reason to fail.
@Suite("One configuration on every transport", .generousTimeLimit)
struct OneConfigurationTests {
    /// Which time limits a client sets, and on which clock.
    enum Limits: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `timeout`, `connectTimeout` and `idleTimeout`, on the system clock: the transport
        /// keeps the deadline itself where it can.
        case everyTimeout
        /// All but `idleTimeout`, whose absence sends plain requests down `send` rather than
        /// `transfer`.
        case everyTimeoutButIdle
        /// Every timeout, on a `ManualClock` nobody moves: the client's own timers.
        case everyTimeoutOnAManualClock

        func apply(to configuration: inout NetworkClient.Configuration) {
            // Generous: the requests below take milliseconds; no limit may decide here.
            configuration.timeout = 60
            configuration.connectTimeout = 30
            configuration.idleTimeout = self == .everyTimeoutButIdle ? nil : 30
            if self == .everyTimeoutOnAManualClock { configuration.clock = ManualClock() }
        }

        var testDescription: String { rawValue }
    }

    @Test(
        "with every timeout set, a GET, a POST, a download, an upload and a stream all succeed",
        arguments: TransportUnderTest.allCases, Limits.allCases)
    func everyTimeoutSet(_ subject: TransportUnderTest, limits: Limits) async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/cat": return .json(#"{"name": "Tom", "mood": "purring"}"#)
            case "/lines": return .text("one\ntwo\n")
            default: return .data(request.body)
            }
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = subject.client { limits.apply(to: &$0) }

        let cat = try await client.get(server.clientEndpoint("/cat"), as: ClientCat.self).valueWithin()
        #expect(cat == ClientCat(name: "Tom", mood: "purring"))

        let hello = RequestBody.data(Data("hello".utf8), contentType: "text/plain")
        let echoed = try await client.post(hello, to: server.clientEndpoint("/echo"), as: Data.self).valueWithin()
        #expect(String(decoding: echoed, as: UTF8.self) == "hello")

        let destination = scratch.file("cat.json")
        let download = try await client.download(server.clientEndpoint("/cat"), to: destination).valueWithin()
        #expect(download.statusCode == 200)
        #expect(try Data(contentsOf: destination).count > 0)

        let upload = try scratch.write(Data("uploaded".utf8), to: "up.txt")
        let uploaded = try await client.upload(upload, to: server.clientEndpoint("/echo"), as: Data.self)
            .valueWithin()
        #expect(String(decoding: uploaded, as: UTF8.self) == "uploaded")

        var streamed = Data()
        for try await chunk in client.stream(server.clientEndpoint("/lines")) { streamed.append(chunk) }
        #expect(String(decoding: streamed, as: UTF8.self) == "one\ntwo\n")
    }

    @Test("URLSessionTransport: the ignored connect timeout is reported once per client, not per request")
    func ignoredSettingReportedOnce() async throws {
        let server = try LoopbackServer { _ in .text("hello") }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let client = TransportUnderTest.urlSession.client {
            $0.connectTimeout = 1
            $0.logger = log
        }
        // Reported as the client is made, before any request.
        #expect(await eventually { !log.ignoredSettings.isEmpty })
        for _ in 1...3 {
            _ = try await client.get(server.clientEndpoint("/"), as: Data.self).valueWithin()
        }
        #expect(server.statistics.requestsReceived == 3, "sent, not refused")
        #expect(log.ignoredSettings.count == 1, "\(log.events.map(\.kind))")
        let event = try #require(log.ignoredSettings.first)
        #expect(event.setting == "connectTimeout")
        #expect(event.transport == "URLSessionTransport")
        #expect(
            KringleLogEvent.settingIgnored(setting: event.setting, transport: event.transport, reason: event.reason)
                .description.hasPrefix("! connectTimeout is ignored by URLSessionTransport: "))
    }

    @Test("what each built-in transport reports as ignored")
    func ignoredSettingsByTransport() {
        var everyTimeout = NetworkClient.Configuration()
        Limits.everyTimeout.apply(to: &everyTimeout)
        #expect(CurlTransport().ignoredSettings(of: everyTimeout).isEmpty)
        #expect(URLSessionTransport().ignoredSettings(of: everyTimeout).map(\.setting) == ["connectTimeout"])
        #expect(URLSessionTransport().ignoredSettings(of: NetworkClient.Configuration()).isEmpty)
    }

    @Test("CurlTransport keeps the deadline itself only on the system clock, which it reads too")
    func transportKeepsTimeOnTheSystemClock() {
        var manual = NetworkClient.Configuration()
        manual.clock = ManualClock()
        #expect(NetworkClient(transport: CurlTransport()).transportKeepsTime)
        #expect(!NetworkClient(configuration: manual, transport: CurlTransport()).transportKeepsTime)
        #expect(!NetworkClient(transport: URLSessionTransport()).transportKeepsTime)
        #expect(!NetworkClient(transport: StubTransport()).transportKeepsTime)
    }
}

extension InterceptorEventLog {
    /// The `settingIgnored` events logged so far.
    fileprivate var ignoredSettings: [(setting: String, transport: String, reason: String)] {
        events.compactMap { event in
            guard case .settingIgnored(let setting, let transport, let reason) = event else { return nil }
            return (setting, transport, reason)
        }
    }
}
