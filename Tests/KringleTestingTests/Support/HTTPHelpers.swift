import ChildProcess
import Foundation
import KringleTestSupport
import KringleTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends `request` with a fresh ephemeral URLSession, so tests share no connection pool.
func fetch(_ request: URLRequest) async throws -> (data: Data, response: HTTPURLResponse) {
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else { throw TestFailure("not an HTTP response") }
    return (data, http)
}

/// Sends a GET for `url` with a fresh ephemeral URLSession.
func fetch(_ url: URL) async throws -> (data: Data, response: HTTPURLResponse) {
    try await fetch(URLRequest(url: url))
}

/// Runs the `curl` command with `arguments` and returns what it printed and its exit status
/// (its tests say `.requires(.curl)`).
func runCurl(_ arguments: [String]) throws -> (output: String, status: Int32) {
    let curl = try ChildProcess.run(
        try TestTool.curl.path(), ["--silent", "--show-error", "--max-time", "30"] + arguments)
    return (curl.text, curl.status)
}
