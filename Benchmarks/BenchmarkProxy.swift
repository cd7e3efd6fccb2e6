import ChildProcess
import Foundation
import Kringle
import KringleTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// tinyproxy on a free port of 127.0.0.1, for the benchmark's "through an HTTP proxy" way:
/// the proxy a user would meet, from Debian's `tinyproxy-bin` (`.ci/run` installs it).
final class BenchmarkProxy {
    let url: String
    private let process: ChildProcess
    private let directory: URL

    /// Starts tinyproxy, or says why it could not.
    static func start() -> Result<BenchmarkProxy, any Error> {
        guard
            let binary = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            return .failure(
                CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "tinyproxy is not installed"]))
        }
        do {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-proxy-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let probe = try LoopbackServer { _ in .status(204) }
            let port = probe.port
            probe.shutdown()
            let configuration = directory.appendingPathComponent("tinyproxy.conf")
            try """
            Port \(port)
            Listen 127.0.0.1
            Timeout 60
            LogFile "\(directory.appendingPathComponent("tinyproxy.log").path)"
            LogLevel Critical
            MaxClients 256
            Allow 127.0.0.1

            """.write(to: configuration, atomically: true, encoding: .utf8)
            let process = try ChildProcess(binary, ["-d", "-c", configuration.path])
            let proxy = BenchmarkProxy(url: "http://127.0.0.1:\(port)", process: process, directory: directory)
            return .success(proxy)
        } catch {
            return .failure(error)
        }
    }

    private init(url: String, process: ChildProcess, directory: URL) {
        self.url = url
        self.process = process
        self.directory = directory
    }

    /// Waits until a request through the proxy to `target` succeeds (up to 10 s).
    func waitUntilForwarding(to target: URL) -> Bool {
        let transport = CurlTransport(configuration: .init(proxy: .url(url)))
        for _ in 0..<200 {
            if let response = try? transport.send(HTTPRequest(url: target, timeout: 1)).wait(timeout: 2),
                response.statusCode == 200
            {
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func stop() {
        process.terminate()
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
