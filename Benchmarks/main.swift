import Foundation

/// `swift run -c release kringle-benchmarks [promise|client|cookies|all]`
let usage = "usage: kringle-benchmarks [promise|client|cookies|all]"
let requested = CommandLine.arguments.dropFirst().first ?? "all"

switch requested {
case "promise":
    runPromiseBenchmarks()
case "client":
    try runClientBenchmarks()
case "cookies":
    runCookieJarBenchmarks()
case "all":
    runPromiseBenchmarks()
    try runClientBenchmarks()
    runCookieJarBenchmarks()
default:
    print(usage)
    exit(2)
}
