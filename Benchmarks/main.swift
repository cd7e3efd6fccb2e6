import Foundation

/// `swift run -c release kringle-benchmarks [promise|client|overhead|floor|cold-start|bodies|https|cache|curl|transfers|streams|cookies|compression|compressed-upload|cassettes|unix-socket|websockets|soak|speed-guard|all]`
let usage =
    "usage: kringle-benchmarks [promise|client|overhead|floor|cold-start|bodies|https|cache|curl|transfers|streams|cookies|compression|compressed-upload|cassettes|unix-socket|websockets|soak|speed-guard|all]"
let requested = CommandLine.arguments.dropFirst().first ?? "all"

switch requested {
case "promise":
    runPromiseBenchmarks()
case "client":
    try runClientBenchmarks()
case "overhead":
    do {
        try runOverheadBenchmarks(Array(CommandLine.arguments.dropFirst(2)))
    } catch let usage as Overhead.Usage {
        print(usage)
        exit(2)
    }
case "floor":
    try runFloorBenchmark()
case "cold-start":
    try runColdStartBenchmark()
case "bodies":
    try runBufferedBodyBenchmarks()
case "https":
    try runHTTPSBenchmarks()
case "cache":
    try runCacheBenchmarks()
case "curl":
    runCurlBenchmarks()
case "transfers":
    try runTransferBenchmarks()
case "transfer-child":
    try runTransferChild(Array(CommandLine.arguments.dropFirst(2)))
case "streams":
    try runStreamBenchmarks()
case "stream-child":
    try runStreamChild(Array(CommandLine.arguments.dropFirst(2)))
case "nginx-child":
    try runNginxChild()
case "cookies":
    runCookieJarBenchmarks()
case "compression":
    try runCompressionBenchmarks()
case "compressed-upload":
    try exitWithStatus(of: runCompressedUploadBenchmark, usage: CompressionBenchmarkFailure.self)
case "compressed-upload-child":
    try runCompressedUploadChild(Array(CommandLine.arguments.dropFirst(2)))
case "cassettes":
    try runCassetteBenchmarks()
case "unix-socket":
    try runUnixSocketBenchmarks()
case "websockets":
    try WebSocketBenchmark.run(Array(CommandLine.arguments.dropFirst(2)))
case "websockets-child":
    try WebSocketBenchmark.runClient(Array(CommandLine.arguments.dropFirst(2)))
case "soak":
    try exitWithStatus(of: runSoak, usage: SoakOptions.Usage.self)
case "speed-guard":
    try exitWithStatus(of: runSpeedGuard, usage: SpeedGuard.Usage.self)
case "all":
    runPromiseBenchmarks()
    try runClientBenchmarks()
    try runOverheadBenchmarks()
    try runFloorBenchmark()
    try runColdStartBenchmark()
    try runBufferedBodyBenchmarks()
    try runHTTPSBenchmarks()
    try runCacheBenchmarks()
    runCurlBenchmarks()
    try runTransferBenchmarks()
    try runStreamBenchmarks()
    runCookieJarBenchmarks()
    try runCompressionBenchmarks()
    _ = try runCompressedUploadBenchmark([])
    try runCassetteBenchmarks()
    try runUnixSocketBenchmarks()
    try WebSocketBenchmark.run([])
default:
    print(usage)
    exit(2)
}

/// Runs a subcommand that decides the process's exit status with the rest of the command line,
/// and exits with it; its usage error is printed and exits with 2.
func exitWithStatus<Usage: Error & CustomStringConvertible>(
    of run: ([String]) throws -> Int32, usage: Usage.Type
) throws -> Never {
    do {
        exit(try run(Array(CommandLine.arguments.dropFirst(2))))
    } catch let usage as Usage {
        print(usage)
        exit(2)
    }
}
