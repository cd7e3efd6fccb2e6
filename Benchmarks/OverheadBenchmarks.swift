import AllocationCounter
import ChildProcess
import Foundation
import Kringle
import KringleTesting
import KringleURLSession
import NginxTestServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `kringle-benchmarks overhead`: what the client itself costs per request, measured the way
/// users call it, against the work it delegates.
///
/// For each transport, one request at a time and 8 in flight, 2,000 GETs of a 200-byte JSON
/// per run, in the styles a user writes:
/// 1. floor: the transport's `send` of the request the client would send (its default
///    header fields included), decoded with `JSONDecoder` in one `always` handler;
///    (1b) the same from `inFlight` threads blocked until each handler has run, the
///    pattern of (4), to show what blocking threads costs by itself;
/// 2. handler: `client.get(endpoint, as:)` with `done`/`catch` (the README's style);
/// 3. await: `try await client.get(endpoint, as:).value` from `inFlight` tasks;
/// 4. wait: `try client.get(endpoint, as:).wait()` from `inFlight` threads;
/// and raw URLSession with `JSONDecoder` in its completion handler, the usual baseline, both
/// from the same pump as (2) and from `inFlight` threads blocked until each task completes,
/// the pattern of (4): URLSession's connection reuse differs between the two.
/// Each round measures every style's run in 8 slices of 250 requests, the styles' slices
/// taking turns in a shuffled order, each after an unmeasured wave of its own. Prints each
/// style's median run: wall and CPU (getrusage) µs per request, heap allocations per
/// request, connections the server accepted per run (nginx only); and
/// the ratios the targets are stated in, each the median over the slices of one style's
/// slice against the baseline's slice of the same turn, taken within a few tens of
/// milliseconds of each other. A host that is slower for a while (this one is, for tens
/// to hundreds of milliseconds at a time) then slows both sides of a ratio alike: ratios of
/// whole runs, taken seconds apart, moved by ±10% from one process to the next.
///
/// `kringle-benchmarks overhead <curl|urlsession> <floor|floorwait|handler|await|wait|raw|rawwait|libcurl|libcurlwait|libcurlawait>[,…] <count> [inFlight]`
/// runs the styles named (alternating, as the table does), for a profiler (`perf record -g`).
///
/// The table is printed twice: as the machine schedules the threads, then from a child
/// process (`overhead --one-core`) whose threads, and nginx's, all run on one core. On a
/// small virtual machine most of a sequential request's time in the first table is threads
/// waking each other across cores, which varies by tens of microseconds from process to
/// process and hour to hour; on one core that cost is gone and the same numbers repeat to
/// about a microsecond, so the second table shows what the client's own work costs.
func runOverheadBenchmarks(_ arguments: [String] = []) throws {
    if arguments == [Overhead.oneCoreFlag] {
        // More rounds: with every thread on one core, a busy host shows in every style.
        return try Overhead.table(
            transports: ["CurlTransport"], heading: "on one core (this process and nginx on CPU 0)", rounds: 9)
    }
    if !arguments.isEmpty {
        let server = try OverheadServer.start()
        defer { server.stop() }
        return try Overhead.profile(arguments, server: server)
    }
    try Overhead.table(
        transports: ["CurlTransport", "URLSessionTransport"], heading: "threads where the system puts them")
    // taskset (util-linux) binds the child to CPU 0; the threads it starts, and nginx, which
    // it starts, inherit that.
    let taskset = "/usr/bin/taskset"
    if FileManager.default.isExecutableFile(atPath: taskset) {
        fflush(nil)  // every stream: the child writes to the same output
        let child = try ChildProcess(taskset, ["-c", "0", CommandLine.arguments[0], "overhead", Overhead.oneCoreFlag])
        let status = child.waitForExit()
        if status != 0 { print("(the one-core run failed with status \(status))\n") }
    } else {
        print("(the one-core table needs \(taskset), from util-linux)\n")
    }
    print(
        "Targets: over CurlTransport, handler ≤ 1.10x floor, await and wait ≤ 1.15x; handler ≤ 0.3x raw URLSession"
            + " sequentially and ≤ 0.15x with 8 in flight (nginx). Over URLSessionTransport, handler ≤ 1.05x raw"
            + " URLSession. At most 8 new connections per run with 8 in flight.\n")
}

extension Overhead {
    /// The argument that makes `overhead` print the one-core table.
    static let oneCoreFlag = "--one-core"

    /// Measures every style over each of `transports`, one request at a time and 8 in
    /// flight, and prints the table.
    static func table(transports: [String], heading: String, rounds: Int = rounds) throws {
        let server = try OverheadServer.start()
        defer { server.stop() }
        print("## Client overhead against \(server.name), \(heading): \(requests) GETs per run, medians of \(rounds)\n")
        if kac_counts_allocations() == 0 { print("(allocations are not counted on this platform)\n") }
        let table = Table(
            "transport", "mode", "style", "wall µs/req", "CPU µs/req", "allocs/req", "new conns/run", "wall vs floor",
            "CPU vs floor", "wall vs raw URLSession")
        var waitingAgainstBlockedFloor: [String] = []
        for transportName in transports {
            for inFlight in [1, 8] {
                let transport: any Transport =
                    transportName == "CurlTransport" ? CurlTransport() : URLSessionTransport()
                let measured = measure(transport: transport, inFlight: inFlight, server: server, rounds: rounds)
                for style in Style.allCases {
                    guard let run = measured.median(style) else { continue }
                    let ratio = { (baseline: Style, measure: (Run) -> Double) in
                        style.isRaw ? "" : measured.ratio(style, to: baseline, measure)
                    }
                    let failures = run.failures > 0 ? " (\(run.failures) failed)" : ""
                    table.row(
                        style.isRaw ? "–" : transportName,
                        inFlight == 1 ? "sequential" : "\(inFlight) in flight",
                        style.rawValue + failures,
                        perRequest(run.wall), perRequest(run.cpu),
                        kac_counts_allocations() == 0 ? "n/a" : String(format: "%.0f", run.allocationsPerRequest),
                        run.connections.map(String.init) ?? "n/a",
                        ratio(.floor, \.wall), ratio(.floor, \.cpu), ratio(.rawURLSession, \.wall))
                }
                waitingAgainstBlockedFloor.append(
                    "\(transportName), \(inFlight) in flight: \(measured.ratio(.wait, to: .floorWaiting, \.wall))")
            }
        }
        print(
            "\n(4) wait() against (1b), the floor called from blocked threads as wait() is: "
                + waitingAgainstBlockedFloor.joined(separator: "; ") + ".\n")
    }
}

enum Overhead {
    static let requests = 2_000
    static let warmUp = 200
    static let rounds = 5

    /// The JSON the server sends, decoded.
    struct Item: Decodable, Sendable {
        var id: Int
        var name: String
        var tags: [String]
        var price: Double
        var available: Bool
        var updated: String
        var description: String
    }

    enum Style: String, CaseIterable {
        case floor = "(1) floor: send + JSONDecoder"
        /// The floor called as `wait()` calls the client: each thread blocked until its
        /// request's handler (which decodes) has run. What that pattern costs by itself.
        case floorWaiting = "(1b) floor from blocked threads"
        case handler = "(2) handler: get(…).done"
        case await = "(3) await get(…).value"
        case wait = "(4) get(…).wait()"
        case rawURLSession = "raw URLSession + JSONDecoder"
        /// Raw URLSession called as `wait()` calls it: each thread blocked until its task
        /// completes. The baseline for the connections that style opens.
        case rawURLSessionWaiting = "raw URLSession from blocked threads"
        /// libcurl driven directly from C, decoded on the same thread: no Kringle code at all
        /// (`kringle-benchmarks floor`; not in the overhead table).
        case libcurl = "libcurl alone + JSONDecoder"
        /// libcurl alone from blocked threads, each with an easy handle of its own: the floor
        /// of `wait()` (``LibcurlFloor/runWaiting(_:count:on:)``).
        case libcurlWaiting = "libcurl alone from blocked threads"
        /// libcurl alone, each answer resuming a task that awaits it: the floor of `await`
        /// (``LibcurlFloor/runAwaited(_:count:inFlight:)``).
        case libcurlAwaited = "libcurl alone, awaited by tasks"

        var isRaw: Bool {
            self == .rawURLSession || self == .rawURLSessionWaiting || isLibcurl
        }

        var isLibcurl: Bool {
            self == .libcurl || self == .libcurlWaiting || self == .libcurlAwaited
        }

        /// The styles of the overhead table.
        static let overhead = allCases.filter { !$0.isLibcurl }
    }

    /// One measured run.
    struct Run {
        var wall: Double
        var cpu: Double
        var allocations: UInt64
        var connections: Int?
        var failures: Int
        /// The process's context switches (``processContextSwitches()``).
        var contextSwitches = 0

        var allocationsPerRequest: Double { Double(allocations) / Double(Overhead.requests) }

        static let zero = Run(wall: 0, cpu: 0, allocations: 0, connections: 0, failures: 0)

        /// Two runs as one: a round's slices added up.
        static func + (lhs: Run, rhs: Run) -> Run {
            Run(
                wall: lhs.wall + rhs.wall, cpu: lhs.cpu + rhs.cpu, allocations: lhs.allocations + rhs.allocations,
                connections: lhs.connections.flatMap { left in rhs.connections.map { left + $0 } },
                failures: lhs.failures + rhs.failures, contextSwitches: lhs.contextSwitches + rhs.contextSwitches)
        }
    }

    /// Bad arguments to the profiling form.
    struct Usage: Error, CustomStringConvertible {
        var description: String {
            "usage: kringle-benchmarks overhead <curl|urlsession> <floor|floorwait|handler|await|wait|raw|rawwait|libcurl|libcurlwait|libcurlawait>[,…] <count> [inFlight]"
        }
    }

    /// The styles named (comma-separated, run alternately as in the table) over one
    /// transport, `count` requests per run, for a profiler.
    static func profile(_ arguments: [String], server: OverheadServer) throws {
        let styles: [String: Style] = [
            "floor": .floor, "floorwait": .floorWaiting, "handler": .handler, "await": .await, "wait": .wait,
            "raw": .rawURLSession,
            "rawwait": .rawURLSessionWaiting, "libcurl": .libcurl, "libcurlwait": .libcurlWaiting,
            "libcurlawait": .libcurlAwaited,
        ]
        let named = arguments.count >= 2 ? arguments[1].split(separator: ",").map { styles[String($0)] } : []
        guard arguments.count >= 3, !named.isEmpty, let count = Int(arguments[2]) else { throw Usage() }
        let chosen = named.compactMap { $0 }
        // A style named twice would pair its runs with the wrong rounds.
        guard chosen.count == named.count, Set(chosen).count == chosen.count else { throw Usage() }
        let inFlight = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
        let transport: any Transport = arguments[0] == "curl" ? CurlTransport() : URLSessionTransport()
        let measured = measure(transport: transport, inFlight: inFlight, server: server, styles: chosen, count: count)
        for style in chosen {
            guard let run = measured.median(style) else { continue }
            let perRequest = { (value: Double) in String(format: "%.1f", value / Double(count)) }
            let againstFloor =
                style != .floor && chosen.contains(.floor) ? ", \(measured.ratio(style, to: .floor, \.wall)) floor" : ""
            print(
                "\(arguments[0]) \(style.rawValue), \(inFlight) in flight: \(perRequest(run.wall * 1e6)) µs wall,"
                    + " \(perRequest(run.cpu * 1e6)) µs CPU, \(perRequest(Double(run.contextSwitches))) context switches"
                    + " and \(perRequest(Double(run.allocations))) allocations per request,"
                    + " \(run.connections.map(String.init) ?? "n/a") new connections\(againstFloor)")
        }
    }

    static func perRequest(_ seconds: Double) -> String {
        String(format: "%.1f", seconds / Double(requests) * 1_000_000)
    }

    /// Every run of each style, round by round, and the slices they were measured in.
    struct Rounds {
        /// Each style's runs, one per round: its slices of the round added up.
        let runs: [Style: [Run]]
        /// Each style's slices, in the order measured: the `i`-th slice of every style was
        /// measured in the same pass over the styles, within a few tens of milliseconds.
        let slices: [Style: [Run]]

        /// The style's median run, by wall time.
        func median(_ style: Style) -> Run? {
            runs[style].map { $0.sorted { $0.wall < $1.wall }[$0.count / 2] }
        }

        /// The median, over the slices, of `measure` of `style`'s slice divided by that of
        /// `baseline`'s slice of the same pass, formatted.
        func ratio(_ style: Style, to baseline: Style, _ measure: (Run) -> Double) -> String {
            guard let candidates = slices[style], let baselines = slices[baseline] else { return "" }
            let ratios = zip(candidates, baselines).map { measure($0) / measure($1) }.sorted()
            return String(format: "%.2fx", ratios[ratios.count / 2])
        }
    }

    /// How many slices a run is measured in. Slices of every style take turns, so that a
    /// host that is slower for a while slows each style's slice of the same pass alike: the
    /// ratios are taken slice against slice (see `runOverheadBenchmarks`).
    static let slicesPerRun = 8

    /// The requests each slice is preceded by, unmeasured: one per lane with 8 in flight.
    static let sliceWarmUp = 8

    /// Every style over `transport`, warmed up, then `rounds` rounds. A round measures
    /// every style's run of `count` requests in `slicesPerRun` slices: one slice of each
    /// style in turn, then the next. Each pass takes the styles in an order of its own
    /// (shuffled): in a fixed order each style followed the same other style every time, and
    /// on two cores what that style left running (or idle) moved the ratios by up to 0.1x.
    static func measure(
        transport: any Transport, inFlight: Int, server: OverheadServer, styles: [Style] = Style.overhead,
        count: Int = requests, rounds: Int = rounds
    ) -> Rounds {
        let client = NetworkClient(transport: transport)
        let raw = URLSession(configuration: .ephemeral)
        let lanes = BlockedLanes(count: inFlight)
        defer {
            lanes.stop()
            raw.finishTasksAndInvalidate()
        }
        let floor = floorRequest(transport, server.request)
        let rawURLSession = rawRequest(raw, server.request)
        let work: [Style: (Int) -> Int] = [
            .floor: { count in CurlBenchmark.pump(count: count, inFlight: inFlight, start: floor) },
            .floorWaiting: { count in lanes.run(count: count) { blocking(floor) } },
            .handler: { count in handler(client, server.endpoint, count: count, inFlight: inFlight) },
            .await: { count in awaiting(client, server.endpoint, count: count, inFlight: inFlight) },
            .wait: { count in waiting(client, server.endpoint, count: count, on: lanes) },
            .rawURLSession: { count in CurlBenchmark.pump(count: count, inFlight: inFlight, start: rawURLSession) },
            .rawURLSessionWaiting: { count in lanes.run(count: count) { blocking(rawURLSession) } },
            .libcurl: { count in LibcurlFloor.run(server.request, count: count, inFlight: inFlight) },
            .libcurlWaiting: { count in LibcurlFloor.runWaiting(server.request, count: count, on: lanes) },
            .libcurlAwaited: { count in LibcurlFloor.runAwaited(server.request, count: count, inFlight: inFlight) },
        ]
        for style in styles { _ = work[style]!(warmUp) }
        var runs: [Style: [Run]] = [:]
        var slices: [Style: [Run]] = [:]
        for _ in 0..<rounds {
            var round: [Style: Run] = [:]
            for slice in 0..<slicesPerRun {
                let size = count / slicesPerRun + (slice < count % slicesPerRun ? 1 : 0)
                for style in styles.shuffled() {
                    // A wave of its own first, unmeasured: the threads the style uses (and
                    // their caches) may have gone idle during the other styles' slices.
                    _ = work[style]!(sliceWarmUp)
                    let run = measureRun(server: server) { work[style]!(size) }
                    slices[style, default: []].append(run)
                    round[style] = round[style, default: .zero] + run
                }
            }
            for (style, run) in round { runs[style, default: []].append(run) }
        }
        return Rounds(runs: runs, slices: slices)
    }

    /// Wall, CPU, allocations and new connections of `body`, which returns its failures.
    private static func measureRun(server: OverheadServer, _ body: () -> Int) -> Run {
        let connectionsBefore = server.acceptedConnections()
        let switchesBefore = processContextSwitches()
        let allocationsBefore = kac_allocations()
        let cpuBefore = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        let failures = body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = processCPUSeconds() - cpuBefore
        let allocations = kac_allocations() - allocationsBefore
        let connections = connectionsBefore.flatMap { before in server.acceptedConnections().map { $0 - before } }
        return Run(
            wall: wall, cpu: cpu, allocations: allocations, connections: connections, failures: failures,
            contextSwitches: processContextSwitches() - switchesBefore)
    }

    static let decoder = JSONDecoder()

    /// (2) The README's style: a typed `get` and a handler.
    private static func handler(_ client: NetworkClient, _ endpoint: some Endpoint, count: Int, inFlight: Int) -> Int {
        CurlBenchmark.pump(count: count, inFlight: inFlight) { completion in
            client.get(endpoint, as: Item.self)
                .done { _ in completion(true) }
                .catch { _ in completion(false) }
        }
    }

    /// (3) `await` from `inFlight` tasks, each sending its share one after another.
    private static func awaiting(_ client: NetworkClient, _ endpoint: some Endpoint, count: Int, inFlight: Int)
        -> Int
    {
        let finished = DispatchSemaphore(value: 0)
        let failures = Locked(0)
        Task {
            await withTaskGroup(of: Int.self) { group in
                for lane in 0..<inFlight {
                    group.addTask {
                        var failed = 0
                        for _ in stride(from: lane, to: count, by: inFlight) {
                            do { _ = try await client.get(endpoint, as: Item.self).value } catch { failed += 1 }
                        }
                        return failed
                    }
                }
                for await failed in group { failures.update { $0 += failed } }
            }
            finished.signal()
        }
        finished.wait()
        return failures.get()
    }

    /// (4) `wait()` from threads of their own (Dispatch would give blocked lanes no more
    /// threads than there are cores).
    private static func waiting(_ client: NetworkClient, _ endpoint: some Endpoint, count: Int, on lanes: BlockedLanes)
        -> Int
    {
        lanes.run(count: count) {
            (try? client.get(endpoint, as: Item.self).wait()) != nil
        }
    }

    /// (1) The transport alone: its `send`, decoded in its one handler.
    private static func floorRequest(_ transport: any Transport, _ request: HTTPRequest) -> CurlBenchmark.Pump.Start {
        { completion in
            let promise = transport.send(request)
            promise.always {
                guard case .success(let response)? = promise.result, response.statusCode == 200 else {
                    return completion(false)
                }
                completion((try? decoder.decode(Item.self, from: response.body)) != nil)
            }
        }
    }

    /// Raw URLSession: a data task, decoded in its completion handler.
    private static func rawRequest(_ session: URLSession, _ request: HTTPRequest) -> CurlBenchmark.Pump.Start {
        { completion in
            session.dataTask(with: URLRequest(request)) { data, response, _ in
                guard (response as? HTTPURLResponse)?.statusCode == 200, let data else { return completion(false) }
                completion((try? decoder.decode(Item.self, from: data)) != nil)
            }.resume()
        }
    }

    /// Makes `start`'s request on this thread and blocks it until the completion has run, as
    /// `wait()` blocks: the pattern of (1b) and raw URLSession from blocked threads.
    private static func blocking(_ start: CurlBenchmark.Pump.Start) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let succeeded = Locked(false)
        start { success in
            succeeded.set(success)
            done.signal()
        }
        done.wait()
        return succeeded.get()
    }
}

/// The server the overhead benchmark talks to: nginx when it is installed (a real server in
/// its own process, whose status page counts connections), LoopbackServer otherwise.
final class OverheadServer: Sendable {
    let name: String
    let url: URL
    /// What the client sends for `endpoint`: a GET of `url` with the client's default
    /// header fields (`Accept: application/json`). The floor and raw URLSession send the
    /// same, so that the transport's work for the request is the same in every style.
    let request: HTTPRequest
    let endpoint: BenchmarkEndpoint
    private let nginx: NginxServer?
    private let loopback: LoopbackServer?

    private init(name: String, url: URL, nginx: NginxServer?, loopback: LoopbackServer?) {
        self.name = name
        self.url = url
        endpoint = BenchmarkEndpoint(baseURL: url.deletingLastPathComponent(), path: url.lastPathComponent)
        var request = HTTPRequest(url: url)
        for (name, value) in NetworkClient.Configuration().defaultHeaders {
            request.headers[name] = value
        }
        self.request = request
        self.nginx = nginx
        self.loopback = loopback
    }

    static func start() throws -> OverheadServer {
        switch NginxServer.start(serving: CurlBenchmark.payload) {
        case .success(let nginx):
            return OverheadServer(name: "nginx", url: nginx.url, nginx: nginx, loopback: nil)
        case .failure(let reason):
            print("nginx skipped (\(reason)); using LoopbackServer, whose threads count in the CPU column")
            let loopback = try LoopbackServer { _ in .json(CurlBenchmark.payload) }
            return OverheadServer(
                name: "LoopbackServer", url: loopback.url("/item.json"), nginx: nil, loopback: loopback)
        }
    }

    func acceptedConnections() -> Int? {
        nginx?.acceptedConnections()
    }

    func stop() {
        nginx?.stop()
        loopback?.shutdown()
    }
}
