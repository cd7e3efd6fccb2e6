import Foundation

/// `swift run -c release kringle-benchmarks [promise|cookies|all]`
let usage = "usage: kringle-benchmarks [promise|cookies|all]"
let requested = CommandLine.arguments.dropFirst().first ?? "all"

switch requested {
case "promise":
    runPromiseBenchmarks()
case "cookies":
    runCookieJarBenchmarks()
case "all":
    runPromiseBenchmarks()
    runCookieJarBenchmarks()
default:
    print(usage)
    exit(2)
}
