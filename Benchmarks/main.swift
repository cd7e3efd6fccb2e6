import Foundation

/// `swift run -c release kringle-benchmarks [promise|client|overhead|bodies|https|cache|curl|transfers|streams|cookies|soak|speed-guard|all]`
let usage =
    "usage: kringle-benchmarks [promise|client|overhead|bodies|https|cache|curl|transfers|streams|cookies|soak|speed-guard|all]"
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
case "cookies":
    runCookieJarBenchmarks()
case "soak":
    do {
        exit(try runSoak(Array(CommandLine.arguments.dropFirst(2))))
    } catch let usage as SoakOptions.Usage {
        print(usage)
        exit(2)
    }
case "speed-guard":
    do {
        exit(try runSpeedGuard(Array(CommandLine.arguments.dropFirst(2))))
    } catch let usage as SpeedGuard.Usage {
        print(usage)
        exit(2)
    }
case "all":
    runPromiseBenchmarks()
    try runClientBenchmarks()
    try runOverheadBenchmarks()
    try runBufferedBodyBenchmarks()
    try runHTTPSBenchmarks()
    try runCacheBenchmarks()
    runCurlBenchmarks()
    try runTransferBenchmarks()
    try runStreamBenchmarks()
    runCookieJarBenchmarks()
default:
    print(usage)
    exit(2)
}
