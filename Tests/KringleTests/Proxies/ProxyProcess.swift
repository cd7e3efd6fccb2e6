import ChildProcess
import Foundation
import KringleTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real proxy from a Debian package, run for one test: tinyproxy (HTTP and `CONNECT`) or
/// microsocks (SOCKS5), on a free port of 127.0.0.1, with its configuration and its log in
/// a directory of its own. Its tests say `.requires(.tinyproxy)` or `.requires(.microsocks)`.
///
/// ```swift
/// let proxy = try await ProxyProcess.tinyproxy()
/// defer { proxy.stop() }
/// ```
final class ProxyProcess: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    /// What it logs: tinyproxy's `LogFile`, or microsocks's standard error.
    let logFile: URL
    private let directory: URL
    private let process: ChildProcess

    private init(port: Int, logFile: URL, directory: URL, process: ChildProcess) {
        self.port = port
        self.logFile = logFile
        self.directory = directory
        self.process = process
    }

    /// tinyproxy, adding `Via: 1.1 kringle-test-proxy (tinyproxy/…)` to what it forwards and
    /// logging each request line; with `basicAuth`, it demands those credentials.
    static func tinyproxy(basicAuth: (user: String, password: String)? = nil) async throws -> ProxyProcess {
        try await start(.tinyproxy) { directory, port in
            let log = directory.appendingPathComponent("proxy.log")
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 60", "LogFile \"\(log.path)\"", "LogLevel Info",
                "MaxClients 32", "Allow 127.0.0.1", "ViaProxyName \"kringle-test-proxy\"",
            ]
            if let basicAuth { lines.append("BasicAuth \(basicAuth.user) \(basicAuth.password)") }
            let configuration = directory.appendingPathComponent("tinyproxy.conf")
            try (lines.joined(separator: "\n") + "\n").write(to: configuration, atomically: true, encoding: .utf8)
            // -d: in the foreground, so that stopping it is one signal to a known process.
            return (["-d", "-c", configuration.path], log)
        }
    }

    /// microsocks, logging `client[…] 127.0.0.1: connected to HOST:PORT` for each connection,
    /// HOST as the client named it (a name for `socks5h`, an address for `socks5`); with
    /// `credentials`, it demands them (RFC 1929).
    static func microsocks(credentials: (user: String, password: String)? = nil) async throws -> ProxyProcess {
        try await start(.microsocks) { directory, port in
            var arguments = ["-i", "127.0.0.1", "-p", "\(port)"]
            if let credentials { arguments += ["-u", credentials.user, "-P", credentials.password] }
            return (arguments, directory.appendingPathComponent("proxy.log"))
        }
    }

    /// What the proxy has logged so far.
    var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Whether the log comes to contain `text` within a generous bound (a proxy may write its
    /// line a moment after forwarding the response).
    func logs(_ text: String) async -> Bool {
        await eventually(within: 30) { log.contains(text) }
    }

    /// Stops the proxy, waits for it, and removes its directory.
    func stop() {
        process.terminate(with: SIGKILL)
        process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts `program` on a free port, its standard output and error going to the log
    /// file that `prepare` names (unless the program writes that file itself), and waits
    /// until it accepts connections. A port someone else took in between makes the proxy
    /// exit; it is started again on another.
    private static func start(
        _ tool: TestTool, prepare: (URL, Int) throws -> (arguments: [String], log: URL)
    ) async throws -> ProxyProcess {
        let binary = try tool.path()
        let program = tool.name
        var failures: [String] = []
        for _ in 0..<3 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kringle-\(program)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let port = try freePort()
            let (arguments, log) = try prepare(directory, port)
            let output = open(directory.appendingPathComponent("output.log").path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            let outputFile = directory.appendingPathComponent("output.log")
            defer { if output >= 0 { close(output) } }
            let process = try ChildProcess(
                binary, arguments, output: output >= 0 ? output : nil, includingStandardError: true)
            let proxy = ProxyProcess(
                port: port, logFile: program == "microsocks" ? outputFile : log, directory: directory,
                process: process)
            if await proxy.acceptsConnections() { return proxy }
            failures.append((try? String(contentsOf: outputFile, encoding: .utf8)) ?? "")
            proxy.stop()
        }
        throw ProxyProcessError("\(program) did not start listening: \(failures.joined(separator: " / "))")
    }

    /// Polls the port until a connection succeeds, for up to 60 s, while the proxy runs.
    private func acceptsConnections() async -> Bool {
        await eventually(within: 60) { [port] in
            !process.isRunning || Self.connects(to: port)
        } && process.isRunning
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    private static func connects(to port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nothing listens on right now: one the kernel just handed out and took back.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ProxyProcessError("socket failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopback(0)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw ProxyProcessError("bind failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw ProxyProcessError("getsockname failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Why a proxy could not be started.
struct ProxyProcessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
