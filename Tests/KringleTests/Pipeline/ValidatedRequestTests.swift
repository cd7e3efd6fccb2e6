import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ValidatedRequest` is the only kind of request a transport takes: these tests change a
/// request after its check in every way the client does, and show that what changed is
/// checked too, so nothing unchecked reaches a transport.
@Suite("ValidatedRequest: no request reaches a transport unchecked", .generousTimeLimit)
struct ValidatedRequestTests {
    private static let base = URL(string: "https://api.example/v1")!

    /// A request carrying a field value with a control character. (On Linux,
    /// `URLRequest.setValue` drops a value with CR, LF or NUL by itself; ESC it keeps.)
    private static func request(field: String = "X-Note", value: String) -> HTTPRequest {
        var request = HTTPRequest(url: base)
        request.headers[field] = value
        return request
    }

    /// Whether `error` is the `invalidRequest` that names `field`.
    private static func namesField(_ error: (any Error)?, _ field: String) -> Bool {
        guard case KringleError.invalidRequest(let reason)? = error else { return false }
        return reason.contains("\"\(field)\"")
    }

    @Test("a request that breaks the grammar cannot be made a ValidatedRequest")
    func checkedOnCreation() {
        #expect(throws: KringleError.self) { try ValidatedRequest(Self.request(value: "a\u{1B}b")) }
        var badMethod = HTTPRequest(url: Self.base)
        badMethod.method = "PO ST"
        #expect(throws: KringleError.self) { try ValidatedRequest(badMethod) }
        #expect((try? ValidatedRequest(Self.request(value: "a\tb"))) != nil)
    }

    @Test("a field set on a checked request is checked, and the request it came from is left as it was")
    func settingAFieldChecksIt() throws {
        let checked = try ValidatedRequest(Self.request(value: "fine"))
        var thrown: (any Error)?
        do {
            _ = try checked.setting("s\u{1B}[2J", forField: "X-Signature")
        } catch {
            thrown = error
        }
        #expect(Self.namesField(thrown, "X-Signature"))
        #expect(throws: KringleError.self) { try checked.setting("v", forField: "Bad Name") }
        #expect(checked.request.headers["X-Signature"] == nil)
        let changed = try checked.setting("2", forField: "X-Version")
        #expect(changed.request.headers["X-Version"] == "2")
        #expect(changed.request.headers["X-Note"] == "fine")
    }

    @Test("a transport sent an HTTPRequest directly checks it first, and sends nothing that fails")
    func transportsCheckWhatTheyAreHandedDirectly() async {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200) }
        let outcome = await transport.send(Self.request(value: "a\u{1B}b")).outcome()
        #expect(Self.namesField(outcome.error, "X-Note"))
        #expect(transport.requests.isEmpty)
    }

    /// The cache's conditional request is the client's own change to a checked request:
    /// the stored response's validator goes into it. A validator the server sent with a
    /// control character must not go out unchecked.
    @Test("a revalidation carrying a stored validator that breaks the grammar is refused, not sent")
    func cacheValidatorsAreChecked() async throws {
        let transport = StubTransport()
        transport.stub { _ in
            .init(status: 200, headers: ["ETag": "\"a\u{1}b\"", "Cache-Control": "no-cache"], body: Data("v1".utf8))
        }
        var configuration = NetworkClient.Configuration()
        configuration.cache = HTTPCache.memory()
        let client = NetworkClient(configuration: configuration, transport: transport)
        let endpoint = ClientTestEndpoint(baseURL: Self.base, path: "/doc")
        let first = try await client.get(endpoint, as: Data.self).valueWithin()
        #expect(first == Data("v1".utf8))
        let second = await client.get(endpoint, as: Data.self).outcome()
        #expect(Self.namesField(second.error, "If-None-Match"))
        #expect(transport.requests.count == 1)
    }
}

extension Result {
    /// The failure's error, or `nil` on success.
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
