import Foundation

/// `swift run -c release kringle-benchmarks [promise|client|curl|cookies|all]`
let usage = "usage: kringle-benchmarks [promise|client|curl|cookies|all]"
let requested = CommandLine.arguments.dropFirst().first ?? "all"

switch requested {
case "promise":
    runPromiseBenchmarks()
case "client":
    try runClientBenchmarks()
case "curl":
    runCurlBenchmarks()
case "cookies":
    runCookieJarBenchmarks()
case "all":
    runPromiseBenchmarks()
    try runClientBenchmarks()
    runCurlBenchmarks()
    runCookieJarBenchmarks()
default:
    print(usage)
    exit(2)
}
