import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// LoopbackServer listening on a Unix socket: its URL, its file, and what it refuses.
@Suite("Unix sockets: LoopbackServer on a socket", .generousTimeLimit)
struct UnixSocketServerTests {
    @Test("the server's base URL is the socket's http+unix URL; url(_:) builds on it; port is 0")
    func urls() throws {
        let path = freshSocketPath()
        let server = try LoopbackServer(unixSocketPath: path) { _ in .status(204) }
        defer { server.shutdown() }
        #expect(server.unixSocketPath == path)
        #expect(server.port == 0)
        #expect(server.baseURL == UnixSocketURL(socketPath: path).url)
        #expect(UnixSocketURL(server.baseURL)?.socketPath == path)
        #expect(
            server.url("/containers/json?all=1").absoluteString == server.baseURL.absoluteString
                + "/containers/json?all=1")
        let tcp = try LoopbackServer { _ in .status(204) }
        defer { tcp.shutdown() }
        #expect(tcp.unixSocketPath == nil)
        #expect(tcp.baseURL.scheme == "http")
    }

    @Test("the socket file exists while the server runs and is gone once it stops")
    func socketFile() throws {
        let path = freshSocketPath()
        let server = try LoopbackServer(unixSocketPath: path) { _ in .status(204) }
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        server.shutdown()
        #expect(!FileManager.default.fileExists(atPath: path))
        server.shutdown()  // twice does nothing more
    }

    @Test("a file already at the path is left alone and the server does not start")
    func existingFile() throws {
        let path = freshSocketPath()
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: LoopbackServerError.socketCallFailed(call: "bind", errno: EADDRINUSE)) {
            _ = try LoopbackServer(unixSocketPath: path) { _ in .status(204) }
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
    }

    @Test("a path too long for a socket address is refused")
    func longPath() throws {
        let path = "/tmp/" + String(repeating: "p", count: 200) + ".sock"
        #expect(throws: LoopbackServerError.socketCallFailed(call: "bind", errno: ENAMETOOLONG)) {
            _ = try LoopbackServer(unixSocketPath: path) { _ in .status(204) }
        }
    }

    @Test("the socket serves what the handler answers, over a raw connection too (curl, the command)", .requires(.curl))
    func curlCommandLine() async throws {
        let curl = try TestTool.curl.path()
        let server = try LoopbackServer(unixSocketPath: freshSocketPath()) { request in
            .text("host=\(request.header("Host") ?? "-") path=\(request.target)")
        }
        defer { server.shutdown() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.arguments = ["-s", "--unix-socket", server.unixSocketPath ?? "", "http://localhost/ping?x=1"]
        let output = Pipe()
        process.standardOutput = output
        let data = try await onOwnThread {
            try process.run()
            defer { process.waitUntilExit() }
            return output.fileHandleForReading.readDataToEndOfFile()
        }
        // What curl --unix-socket sends is what CurlTransport sends (UnixSocketLoopbackTests).
        #expect(String(decoding: data, as: UTF8.self) == "host=localhost path=/ping?x=1")
    }
}
