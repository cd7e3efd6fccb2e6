import Foundation
import Kringle
import KringleURLSession
import NginxTestServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `kringle-benchmarks bodies`: buffered bodies of 1, 10, 30 and 100 MB from nginx, received
/// whole in memory with `client.get(endpoint, as: Data.self)` over each transport, next to
/// raw URLSession (a data task's completion handler) and `curl -o /dev/null` in the same run.
/// Medians of 5 alternating rounds, after one unmeasured round of each size. Targets: 100 MB
/// within 1.5x raw URLSession through the URLSession transport, within 1.5x curl's command line
/// through the curl transport.
///
/// The unmeasured round is there because a process's first touch of fresh memory can cost far
/// more than the transfer: in a VM that reports free pages to its host (virtio
/// `page_reporting`), the host backs those pages again on that touch. On the Firecracker VM the
/// targets were measured on, that made the first 100 MB body 250–860 ms in every column that
/// keeps it in memory, against 30–60 ms for the curl transport once warm; `curl -o /dev/null`
/// keeps nothing.
func runBufferedBodyBenchmarks() throws {
    print("## Buffered bodies (nginx on loopback, medians of 5 rounds after a warm-up round)\n")
    let sizes = [1, 10, 30, 100]
    let nginx: NginxServer
    switch NginxServer.start(
        path: "/1.bin",
        prepare: { www in
            for megabytes in sizes {
                try makeSparseFile(www.appendingPathComponent("\(megabytes).bin"), size: Int64(megabytes) << 20)
            }
        })
    {
    case .success(let server): nginx = server
    case .failure(let error):
        print("Skipped: \(error)\n")
        return
    }
    defer { nginx.stop() }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    // Above the default bound of 100,000,000 bytes, which the largest body (100 MiB) crosses.
    var configuration = NetworkClient.Configuration()
    configuration.responseLimits.maximumBodyBytes = 128 << 20
    let overURLSession = NetworkClient(configuration: configuration, transport: URLSessionTransport())
    let overCurl = NetworkClient(configuration: configuration, transport: CurlTransport())

    let table = Table(
        "body", "raw URLSession", "curl -o /dev/null", "client over URLSessionTransport", "client over CurlTransport",
        "URLSession client vs raw", "curl client vs curl CLI")
    for megabytes in sizes {
        let url = nginx.url.deletingLastPathComponent().appendingPathComponent("\(megabytes).bin")
        let endpoint = BenchmarkEndpoint(baseURL: nginx.url.deletingLastPathComponent(), path: "\(megabytes).bin")
        let expected = megabytes << 20
        var runs: [[Double]] = Array(repeating: [], count: 4)
        for round in 0...roundsMeasured {
            let times = [
                try Timing.of { try rawDownload(session, url, expected: expected) }.wall,
                try timeCommand("/usr/bin/curl", ["-s", "-o", "/dev/null", url.absoluteString]),
                try Timing.of { try check(overURLSession.get(endpoint, as: Data.self).wait(), expected) }.wall,
                try Timing.of { try check(overCurl.get(endpoint, as: Data.self).wait(), expected) }.wall,
            ]
            guard round > 0 else { continue }
            for (column, time) in times.enumerated() { runs[column].append(time) }
        }
        let medians = runs.map { $0.sorted()[roundsMeasured / 2] }
        table.row(
            "\(megabytes) MB", milliseconds(medians[0]), milliseconds(medians[1]), milliseconds(medians[2]),
            milliseconds(medians[3]), ratio(medians[2], medians[0]), ratio(medians[3], medians[1]))
    }
    print("")
}

private let roundsMeasured = 5

private struct WrongSize: Error {}

private func check(_ body: Data, _ expected: Int) throws {
    guard body.count == expected else { throw WrongSize() }
}

/// A body received whole by a plain data task.
private func rawDownload(_ session: URLSession, _ url: URL, expected: Int) throws {
    let done = DispatchSemaphore(value: 0)
    let outcome = Locked<Result<Int, any Error>>(.failure(WrongSize()))
    session.dataTask(with: url) { data, _, error in
        outcome.set(error.map { .failure($0) } ?? .success(data?.count ?? 0))
        done.signal()
    }.resume()
    done.wait()
    guard try outcome.get().get() == expected else { throw WrongSize() }
}
