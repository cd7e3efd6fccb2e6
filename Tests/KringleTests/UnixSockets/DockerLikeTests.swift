import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// The README's Docker example against a local server that answers as the Docker Engine API
/// does on its socket (not Docker itself): `GET /containers/json` gives a JSON array of
/// containers with Docker's field names.
@Suite("Unix sockets: a Docker-like daemon", .generousTimeLimit)
struct DockerLikeTests {
    /// What `GET /containers/json?all=1` answers on a Docker Engine (API 1.43), trimmed to
    /// two containers; the fields the README's `Container` does not name are ignored.
    static let containersJSON = #"""
        [
          {
            "Id": "8dfafdbc3a40b4f2a7b2b1e8cbb9a0a2e6d0a8e2b5f1c9d4e7a3b6c8d0e1f2a3",
            "Names": ["/boring_feynman"],
            "Image": "ubuntu:24.04",
            "ImageID": "sha256:d2e4e1f511320dfb2d0baff2468fcf0526998b73fe10c8890b4684bb7ef8290f",
            "Command": "echo 1",
            "Created": 1367854155,
            "Ports": [],
            "Labels": {"com.example.vendor": "Acme"},
            "State": "exited",
            "Status": "Exit 0",
            "HostConfig": {"NetworkMode": "default"},
            "NetworkSettings": {"Networks": {"bridge": {"IPAddress": "172.17.0.2"}}},
            "Mounts": []
          },
          {
            "Id": "9cd87474be90",
            "Names": ["/web", "/proxy/web"],
            "Image": "nginx:stable",
            "ImageID": "sha256:6f17ac3d4b1e",
            "Command": "nginx -g 'daemon off;'",
            "Created": 1700000000,
            "Ports": [{"PrivatePort": 80, "PublicPort": 8080, "Type": "tcp"}],
            "Labels": {},
            "State": "running",
            "Status": "Up 3 hours",
            "HostConfig": {"NetworkMode": "bridge"},
            "NetworkSettings": {"Networks": {}},
            "Mounts": [{"Type": "volume", "Destination": "/usr/share/nginx/html"}]
          }
        ]
        """#

    /// `endpoint`'s path and query on another base URL: the README's `Docker` endpoint pointed
    /// at the test's socket instead of /var/run/docker.sock.
    struct Relocated<Base: Endpoint>: Endpoint {
        let base: Base
        let baseURL: URL
        var path: String { base.path }
        var queryItems: [URLQueryItem] { base.queryItems }
    }

    @Test("the README's Docker endpoint lists containers from a socket that answers as Docker does")
    func listsContainers() async throws {
        let requests = Recorder<LoopbackServer.Request>()
        let daemon = try LoopbackServer(unixSocketPath: freshSocketPath("docker")) { request in
            requests.append(request)
            guard request.method == "GET", request.path == "/containers/json" else {
                return .json(#"{"message": "page not found"}"#, status: 404)
            }
            return .json(Self.containersJSON).addingHeader("Api-Version", "1.43")
        }
        defer { daemon.shutdown() }

        let docker = NetworkClient(transport: CurlTransport())
        let endpoint = Relocated(base: ReadmeExamples.Docker.containers(all: true), baseURL: daemon.baseURL)
        let response = try await docker.get(endpoint, as: [ReadmeExamples.Container].self).valueWithin()

        #expect(response.map(\.names.first) == ["/boring_feynman", "/web"])
        #expect(response.map(\.image) == ["ubuntu:24.04", "nginx:stable"])
        #expect(response.map(\.state) == ["exited", "running"])
        #expect(response.first?.id.hasPrefix("8dfafdbc3a40") == true)
        let request = try #require(requests.elements.first)
        #expect(request.target == "/containers/json?all=1")
        #expect(request.header("Host") == "localhost")
        #expect(request.header("Accept") == "application/json")
    }

    @Test("the README's endpoint names /var/run/docker.sock")
    func readmeEndpoint() throws {
        let socket = try #require(UnixSocketURL(ReadmeExamples.Docker.containers(all: false).baseURL))
        #expect(socket.socketPath == "/var/run/docker.sock")
        #expect(!socket.usesTLS)
    }
}
