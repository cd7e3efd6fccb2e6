import Foundation
import NginxTestServer

/// `kringle-benchmarks nginx-child`: starts nginx, prints its process identifier on a line of
/// its own, and waits to be killed. The test that a killed benchmark leaves no nginx behind
/// (`NginxServerTests`) kills it.
func runNginxChild() throws -> Never {
    let nginx = try NginxServer.start(serving: CurlBenchmark.payload).get()
    // Unbuffered: the test reads it while this process waits.
    FileHandle.standardOutput.write(Data("\(nginx.processIdentifier)\n".utf8))
    while true {
        pause()
        // Held until the process is killed: nginx lives as long as it does.
        withExtendedLifetime(nginx) {}
    }
}
