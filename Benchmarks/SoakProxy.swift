import ChildProcess
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Scripts/chaos_proxy.py` run as a child process: a proxy on 127.0.0.1 in front of nginx
/// that spoils a share of the responses, switched by commands on its control port.
final class ChaosProxy: Sendable {
    /// Where clients connect.
    let port: Int
    private let controlPort: Int
    private let process: ChildProcess

    private init(port: Int, controlPort: Int, process: ChildProcess) {
        self.port = port
        self.controlPort = controlPort
        self.process = process
    }

    /// Starts the proxy in front of `upstreamPort` on 127.0.0.1 and reads the ports it
    /// printed.
    static func start(upstreamPort: Int, seed: Int) throws -> ChaosProxy {
        let python = try executable("python3")
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ProxyError("pipe failed") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        let process: ChildProcess
        do {
            defer { close(ends[1]) }
            process = try ChildProcess(
                python, [script, "--upstream-port", "\(upstreamPort)", "--seed", "\(seed)", "--faults", "off"],
                output: ends[1])
        }
        // "listening PORT control PORT"
        let words = readLine(from: ends[0], seconds: 20).split(separator: " ")
        guard words.count == 4, let port = Int(words[1]), let controlPort = Int(words[3]) else {
            process.terminate()
            process.waitForExit()
            throw ProxyError("\(script) did not print its ports")
        }
        return ChaosProxy(port: port, controlPort: controlPort, process: process)
    }

    /// Sends one command (see the script) and returns the answer line; throws when the
    /// proxy answers `error …` or not at all.
    @discardableResult
    func command(_ line: String) throws -> String {
        let answer = try ControlConnection.exchange(line, port: controlPort)
        if answer.hasPrefix("error") || answer.isEmpty {
            throw ProxyError("the proxy answered \(line) with \"\(answer)\"")
        }
        return answer
    }

    /// What the proxy counted since the last `reset-stats`.
    func statistics() throws -> Statistics {
        try JSONDecoder().decode(Statistics.self, from: Data(try command("stats").utf8))
    }

    /// Stops the proxy (SIGTERM) and waits for it.
    func stop() {
        process.terminate()
        process.waitForExit()
    }

    /// The proxy's counters.
    struct Statistics: Decodable {
        var connections: Int
        var responses: Int
        var spoiled: [String: Int]
        var outageResets: Int

        enum CodingKeys: String, CodingKey {
            case connections, responses, spoiled
            case outageResets = "outage_resets"
        }

        var line: String {
            let kinds = spoiled.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(responses) responses on \(connections) connections, \(spoiled.values.reduce(0, +)) spoiled "
                + "(\(kinds)), \(outageResets) reset by the outage"
        }
    }

    /// The script, beside this file in the package (or where `KRINGLE_CHAOS_PROXY` says).
    private static let script =
        ProcessInfo.processInfo.environment["KRINGLE_CHAOS_PROXY"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/chaos_proxy.py").path

    /// The first `name` on `PATH`: `ChildProcess` takes an absolute path.
    private static func executable(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ProxyError("\(name) is not on PATH")
    }

    /// Reads up to the first newline, for at most `seconds` (a child's first line of output:
    /// this proxy's, the WebSocket benchmark's server's).
    static func readLine(from descriptor: Int32, seconds: Double) -> String {
        var bytes: [UInt8] = []
        let deadline = Date(timeIntervalSinceNow: seconds)
        var byte: UInt8 = 0
        while Date() < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) >= 0 || errno == EINTR else { break }
            guard ready.revents != 0 else { continue }
            guard read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why the proxy could not be started or driven.
struct ProxyError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// One command over TCP to the proxy's control port: not through a Kringle transport, which
/// is what the soak puts to the test.
private enum ControlConnection {
    static func exchange(_ line: String, port: Int) throws -> String {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ProxyError("socket failed") }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ProxyError("cannot reach the proxy's control port \(port)") }
        let request = Array((line + "\n").utf8)
        guard write(descriptor, request, request.count) == request.count else {
            throw ProxyError("cannot write to the proxy's control port")
        }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            answer.append(byte)
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
