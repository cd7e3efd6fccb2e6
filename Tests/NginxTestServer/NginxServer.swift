import ChildProcess
import Foundation
import Kringle
import KringleTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// nginx serving static files on 127.0.0.1 for the benchmarks and the tests (a real server
/// in its own process, with HTTP/2 over TLS), from a throw-away directory, run as a child
/// process in the foreground (`daemon off`) so that stopping it is one signal. Not a product.
///
/// nginx goes when ``stop()`` is called or when the process that started it exits, however it
/// exits (an `ExitWatch`): a benchmark killed by a time limit leaves no nginx behind.
///
/// Install it with `apt-get install -y nginx-light`; without it the benchmarks skip nginx.
public final class NginxServer: Sendable {
    /// The `path` given at start, over plain HTTP.
    public let url: URL
    /// The same path over HTTPS (HTTP/2 and HTTP/1.1 offered by ALPN), when started with
    /// a certificate.
    public let httpsURL: URL?
    /// The same path over plain HTTP/2 with prior knowledge (`h2c`, RFC 9113 §3.3): that
    /// port speaks nothing else.
    public let h2cURL: URL
    private let process: ChildProcess
    /// Stops nginx and removes `directory` if this process exits first.
    private let exitWatch: ExitWatch
    private let directory: URL

    /// nginx's master process, which leads the process group its worker is in too.
    public var processIdentifier: pid_t { process.identifier }

    private init(
        url: URL, httpsURL: URL?, h2cURL: URL, process: ChildProcess, exitWatch: ExitWatch, directory: URL
    ) {
        self.url = url
        self.httpsURL = httpsURL
        self.h2cURL = h2cURL
        self.process = process
        self.exitWatch = exitWatch
        self.directory = directory
    }

    /// Starts nginx serving `payload` at `/item.json`, or says why it could not.
    public static func start(serving payload: String, tls: TLS? = nil) -> Result<NginxServer, NginxError> {
        start(path: "/item.json", tls: tls) { www in
            try payload.write(to: www.appendingPathComponent("item.json"), atomically: true, encoding: .utf8)
        }
    }

    /// Starts nginx with a `www` directory that `prepare` fills, accepting `PUT` uploads
    /// under `/uploads/` and serving what is under `/fresh/` with `Cache-Control:
    /// max-age=3600`; `url` is `path` on it. Or says why it could not.
    ///
    /// - Parameters:
    ///   - unixSocket: a Unix domain socket path the plain server listens on too
    ///     (`listen unix:…`), which must not exist yet; nginx removes it when it stops.
    ///   - tlsUnixSocket: the same for the HTTPS server (`listen unix:… ssl`), when there is one.
    public static func start(
        path: String, tls: TLS? = nil, unixSocket: String? = nil, tlsUnixSocket: String? = nil,
        prepare: (URL) throws -> Void
    ) -> Result<NginxServer, NginxError> {
        let candidates = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx"]
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return .failure(NginxError("nginx is not installed (apt-get install -y nginx-light)"))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kringle-nginx-\(UUID().uuidString)")
        do {
            let ports = try freePorts(3)
            let (port, h2cPort) = (ports[0], ports[1])
            let tlsPort = tls.map { _ in ports[2] }
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("www/uploads"), withIntermediateDirectories: true)
            // nginx started as root runs its worker as `nobody`, which must write uploads.
            for writable in ["", "www/uploads"] {
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o777],
                    ofItemAtPath: directory.appendingPathComponent(writable).path)
            }
            try prepare(directory.appendingPathComponent("www"))
            try configuration(
                directory: directory, port: port, h2cPort: h2cPort, tls: tls.map { ($0, tlsPort ?? 0) },
                unixSocket: unixSocket, tlsUnixSocket: tlsUnixSocket
            )
            .write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            guard let url = URL(string: "http://127.0.0.1:\(port)\(path)"),
                let h2cURL = URL(string: "http://127.0.0.1:\(h2cPort)\(path)")
            else {
                throw NginxError("no URL for port \(port)")
            }
            let process = try ChildProcess(
                binary,
                [
                    "-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path,
                    "-e", directory.appendingPathComponent("error.log").path,
                ])
            let exitWatch: ExitWatch
            do {
                exitWatch = try ExitWatch(terminating: process, removing: [directory.path])
            } catch {
                process.terminate()
                process.waitForExit()
                throw error
            }
            let httpsURL = tlsPort.flatMap { URL(string: "https://localhost:\($0)\(path)") }
            let server = NginxServer(
                url: url, httpsURL: httpsURL, h2cURL: h2cURL, process: process, exitWatch: exitWatch,
                directory: directory)
            guard server.waitUntilServing() else {
                let log =
                    (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                server.stop()
                return .failure(
                    NginxError("nginx did not start: \(log.trimmingCharacters(in: .whitespacesAndNewlines))"))
            }
            return .success(server)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            return .failure(NginxError("nginx could not be started: \(error)"))
        }
    }

    /// Asks for the status page on a connection of its own, kept open between calls.
    private let statusTransport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))

    /// How many connections nginx has accepted since it started, from its `stub_status`
    /// page (the status requests' own connection counts once), or `nil` if unreadable.
    public func acceptedConnections() -> Int? {
        guard let statusURL = URL(string: "/nginx-status", relativeTo: url),
            let response = try? statusTransport.send(HTTPRequest(url: statusURL)).wait(timeout: 5)
        else { return nil }
        // "Active connections: 1 \nserver accepts handled requests\n 10 10 20 \n…"
        let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n")
        guard lines.count > 2 else { return nil }
        return lines[2].split(separator: " ").first.flatMap { Int($0) }
    }

    /// Stops nginx (SIGTERM is its fast shutdown), waits for it, removes its directory.
    public func stop() {
        // First, so that the watch never signals a process group reaped below.
        exitWatch.cancel()
        process.terminate()
        process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Tries a request every 50 ms for up to 10 s.
    private func waitUntilServing() -> Bool {
        let transport = CurlTransport()
        var probe = HTTPRequest(url: url, timeout: 1)
        probe.method = "HEAD"
        for _ in 0..<200 where process.isRunning {
            if let response = try? transport.send(probe).wait(timeout: 2),
                response.statusCode == 200
            {
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// Ports nothing listens on right now, all different: ones the kernel just handed to
    /// servers that have since shut down.
    private static func freePorts(_ count: Int) throws -> [Int] {
        // All probes listen at once, so that the kernel hands out `count` different ports.
        let probes = try (0..<count).map { _ in try LoopbackServer { _ in .status(204) } }
        defer {
            for probe in probes { probe.shutdown() }
        }
        return probes.map(\.port)
    }

    /// A minimal configuration: one worker, keep-alive without a request limit, the file's
    /// descriptor cached (as any production static server would), every path nginx
    /// writes to inside `directory`.
    private static func configuration(
        directory: URL, port: Int, h2cPort: Int, tls: (TLS, port: Int)?, unixSocket: String?, tlsUnixSocket: String?
    ) -> String {
        let root = directory.path
        // Unix domain sockets (issue 32): the same server on a socket as well.
        let unixListener = unixSocket.map { "listen unix:\($0);" } ?? ""
        let tlsUnixListener = tlsUnixSocket.map { "listen unix:\($0) ssl;" } ?? ""
        let secure =
            tls.map { tls, port in
                """
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    \(tlsUnixListener)
                    ssl_certificate \(tls.certificate.path);
                    ssl_certificate_key \(tls.key.path);
                    root \(root)/www;
                    location / { default_type application/json; }
                    location = /nginx-status { stub_status; }
                }
                """
            } ?? ""
        return """
            worker_processes 1;
            daemon off;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log warn;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(root)/client_body;
                proxy_temp_path \(root)/proxy;
                fastcgi_temp_path \(root)/fastcgi;
                uwsgi_temp_path \(root)/uwsgi;
                scgi_temp_path \(root)/scgi;
                keepalive_requests 1000000;
                keepalive_timeout 60s;
                open_file_cache max=16 inactive=600s;
                open_file_cache_valid 600s;
                server {
                    listen 127.0.0.1:\(port);
                    \(unixListener)
                    root \(root)/www;
                    location / { default_type application/json; }
                    location = /nginx-status { stub_status; }
                    location /fresh/ { default_type application/json; expires 1h; }
                    location /uploads/ {
                        dav_methods PUT;
                        client_max_body_size 0;
                        client_body_buffer_size 1m;
                    }
                }
                server {
                    listen 127.0.0.1:\(h2cPort) http2;
                    root \(root)/www;
                    location / { default_type application/json; }
                }
                \(secure)
            }
            """
    }

    /// The certificate and key an HTTPS listener presents.
    public struct TLS: Sendable {
        /// The certificate chain's PEM file.
        public var certificate: URL
        /// Its private key's PEM file.
        public var key: URL

        /// A listener with the PEM files at `certificate` and `key`.
        public init(certificate: URL, key: URL) {
            self.certificate = certificate
            self.key = key
        }
    }
}

/// Why nginx was skipped.
public struct NginxError: Error, CustomStringConvertible {
    /// Why, in a sentence.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
