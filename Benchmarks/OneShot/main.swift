import Foundation
import Kringle

// `kringle-get URL`: one GET through the default client, the body written to standard output,
// as a one-shot script would make it. The process the cold-start benchmark
// (`kringle-benchmarks cold-start`) times against `curl -s URL`; not a product.
//
// `kringle-get --loaded` exits as soon as it runs: what is left is the cost of starting the
// process with its libraries (the dynamic linker's and the runtimes' work), the part of a cold
// start that no code of Kringle's runs in.

/// The whole URL as the endpoint: its base, and no path of its own.
struct WholeURL: Endpoint {
    let baseURL: URL
    var path: String { "" }
}

if CommandLine.arguments.dropFirst() == ["--loaded"] { exit(0) }
guard CommandLine.arguments.count == 2, let url = URL(string: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: kringle-get URL\n".utf8))
    exit(2)
}
do {
    let body = try NetworkClient().get(WholeURL(baseURL: url), as: Data.self).wait(timeout: 30)
    FileHandle.standardOutput.write(body)
} catch {
    FileHandle.standardError.write(Data("kringle-get: \(error)\n".utf8))
    exit(1)
}
