// Compiled only by Scripts/request-path.sh, which builds the tests with coverage and
// `-DKRINGLE_REQUEST_PATH` (and the `Extern` feature, for the declarations at the end).
#if KRINGLE_REQUEST_PATH
import Dispatch
import KringleTestSupport
import Foundation
import NginxTestServer
import Testing

import Kringle
@testable import KringleCore

/// Where `Scripts/request-path.sh` wants the probe's profile written.
private let probeProfilePath = ProcessInfo.processInfo.environment["KRINGLE_REQUEST_PATH_PROFILE"]

/// The measured request of `Scripts/request-path.sh`: one `get(…, as:).done { … }` of
/// `NetworkClient()` against nginx on 127.0.0.1, a server in its own process, so that no
/// code of ours runs on the server's side (LoopbackServer shares Kringle's parsers). A first
/// request warms the client up (the transport, the connection, lazy statics); the LLVM
/// profile counters are then reset, so the profile written holds the second request only.
@Suite("The request path probe", .generousTimeLimit)
struct RequestPathProbe {
    @Test(.enabled(if: probeProfilePath != nil, "Scripts/request-path.sh sets KRINGLE_REQUEST_PATH_PROFILE"))
    func oneRequestOfTheDefaultClient() throws {
        let path = try #require(probeProfilePath)
        let server = try NginxServer.start(serving: #"{"name": "Tom", "mood": "purring"}"#).get()
        defer { server.stop() }
        let endpoint = ProbeEndpoint(
            baseURL: server.url.deletingLastPathComponent(), path: server.url.lastPathComponent)
        let client = NetworkClient()

        #expect(Self.fetch(endpoint, with: client)?.name == "Tom")
        ProfileCounters.reset()
        let cat = Self.fetch(endpoint, with: client)
        let written = ProfileCounters.write(to: path)

        #expect(cat?.name == "Tom")
        #expect(written, "the profile could not be written to \(path)")
    }

    /// One request, exactly as a caller writes it; nil if the handler did not run in 30 s.
    private static func fetch(_ endpoint: ProbeEndpoint, with client: NetworkClient) -> ProbeCat? {
        let received = Box<ProbeCat?>(nil)
        let handled = DispatchSemaphore(value: 0)
        client.get(endpoint, as: ProbeCat.self).done { cat in
            received.withLock { $0 = cat }
            handled.signal()
        }
        guard handled.wait(timeout: .now() + 30) == .success else { return nil }
        return received.value
    }
}

private struct ProbeEndpoint: Endpoint {
    var baseURL: URL
    var path: String
}

private struct ProbeCat: Decodable, Sendable {
    var name: String
    var mood: String
}

/// The LLVM profile runtime's own entry points (compiler-rt's `InstrProfiling.h`). They are
/// hidden symbols of the runtime linked into the test executable, so `dlsym` cannot find them;
/// a C declaration resolves them when the executable is linked, which is why this file is
/// compiled only into the coverage build of `Scripts/request-path.sh`.
@_extern(c, "__llvm_profile_reset_counters") private func llvmProfileResetCounters()
@_extern(c, "__llvm_profile_set_filename") private func llvmProfileSetFilename(_ name: UnsafePointer<CChar>?)
@_extern(c, "__llvm_profile_write_file") private func llvmProfileWriteFile() -> Int32

/// The profile counters of this process.
private enum ProfileCounters {
    /// Every counter back to zero.
    static func reset() {
        llvmProfileResetCounters()
    }

    /// Writes the counters to `path`, then points the write at exit elsewhere (`path.exit`),
    /// so that what runs after the request (the client's release, nginx's stop, the test
    /// runner) does not overwrite it. Returns whether the write succeeded.
    static func write(to path: String) -> Bool {
        // The runtime keeps the pointer it is given, not a copy: both names stay allocated
        // until the process ends.
        llvmProfileSetFilename(strdup(path))
        let status = llvmProfileWriteFile()
        llvmProfileSetFilename(strdup(path + ".exit"))
        return status == 0
    }
}
#endif
