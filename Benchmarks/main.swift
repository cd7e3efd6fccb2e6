import Foundation

/// `swift run -c release kringle-benchmarks [promise|client|overhead|curl|transfers|cookies|all]`
let usage = "usage: kringle-benchmarks [promise|client|overhead|curl|transfers|cookies|all]"
let requested = CommandLine.arguments.dropFirst().first ?? "all"

switch requested {
case "promise":
    runPromiseBenchmarks()
case "client":
    try runClientBenchmarks()
case "overhead":
    try runOverheadBenchmarks(Array(CommandLine.arguments.dropFirst(2)))
case "curl":
    runCurlBenchmarks()
case "transfers":
    try runTransferBenchmarks()
case "transfer-child":
    try runTransferChild(Array(CommandLine.arguments.dropFirst(2)))
case "cookies":
    runCookieJarBenchmarks()
case "all":
    runPromiseBenchmarks()
    try runClientBenchmarks()
    try runOverheadBenchmarks()
    runCurlBenchmarks()
    try runTransferBenchmarks()
    runCookieJarBenchmarks()
default:
    print(usage)
    exit(2)
}
