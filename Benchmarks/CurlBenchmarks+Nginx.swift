import ChildProcess
import Foundation
import KringleTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlBenchmark {
    /// nginx serving one static JSON file on 127.0.0.1, from a throw-away directory, run as
    /// a child process in the foreground (`daemon off`) so that stopping it is one signal.
    ///
    /// Install it with `apt-get install -y nginx-light`; without it the benchmark skips nginx.
    final class NginxServer: Sendable {
        let url: URL
        private let process: ChildProcess
        private let directory: URL

        private init(url: URL, process: ChildProcess, directory: URL) {
            self.url = url
            self.process = process
            self.directory = directory
        }

        /// Starts nginx serving `payload` at `/item.json`, or says why it could not.
        static func start(serving payload: String) -> Result<NginxServer, NginxError> {
            start(path: "/item.json") { www in
                try payload.write(to: www.appendingPathComponent("item.json"), atomically: true, encoding: .utf8)
            }
        }

        /// Starts nginx with a `www` directory that `prepare` fills, accepting `PUT` uploads
        /// under `/uploads/`; `url` is `path` on it. Or says why it could not.
        static func start(path: String, prepare: (URL) throws -> Void) -> Result<NginxServer, NginxError> {
            let candidates = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx"]
            guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                return .failure(NginxError("nginx is not installed (apt-get install -y nginx-light)"))
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kringle-nginx-\(UUID().uuidString)")
            do {
                let port = try freePort()
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent("www/uploads"), withIntermediateDirectories: true)
                // nginx started as root runs its worker as `nobody`, which must write uploads.
                for writable in ["", "www/uploads"] {
                    try FileManager.default.setAttributes(
                        [.posixPermissions: 0o777],
                        ofItemAtPath: directory.appendingPathComponent(writable).path)
                }
                try prepare(directory.appendingPathComponent("www"))
                try configuration(directory: directory, port: port)
                    .write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
                guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
                    throw NginxError("no URL for port \(port)")
                }
                let process = try ChildProcess(
                    binary,
                    [
                        "-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path,
                        "-e", directory.appendingPathComponent("error.log").path,
                    ])
                let server = NginxServer(url: url, process: process, directory: directory)
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
        func acceptedConnections() -> Int? {
            guard let statusURL = URL(string: "/nginx-status", relativeTo: url),
                let response = try? statusTransport.send(URLRequest(url: statusURL)).wait(timeout: 5)
            else { return nil }
            // "Active connections: 1 \nserver accepts handled requests\n 10 10 20 \n…"
            let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n")
            guard lines.count > 2 else { return nil }
            return lines[2].split(separator: " ").first.flatMap { Int($0) }
        }

        /// Stops nginx (SIGTERM is its fast shutdown), waits for it, removes its directory.
        func stop() {
            process.terminate()
            process.waitForExit()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Tries a request every 50 ms for up to 10 s.
        private func waitUntilServing() -> Bool {
            let transport = CurlTransport()
            var probe = URLRequest(url: url, timeoutInterval: 1)
            probe.httpMethod = "HEAD"
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

        /// A port nothing listens on right now: one the kernel just handed to a server that
        /// has since shut down.
        private static func freePort() throws -> Int {
            let probe = try LoopbackServer { _ in .status(204) }
            let port = probe.port
            probe.shutdown()
            return port
        }

        /// A minimal configuration: one worker, keep-alive without a request limit, the file's
        /// descriptor cached (as any production static server would), every path nginx
        /// writes to inside `directory`.
        private static func configuration(directory: URL, port: Int) -> String {
            let root = directory.path
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
                        root \(root)/www;
                        location / { default_type application/json; }
                        location = /nginx-status { stub_status; }
                        location /uploads/ {
                            dav_methods PUT;
                            client_max_body_size 0;
                            client_body_buffer_size 1m;
                        }
                    }
                }
                """
        }
    }

    /// Why nginx was skipped.
    struct NginxError: Error, CustomStringConvertible {
        var description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
