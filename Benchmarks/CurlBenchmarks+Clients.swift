import Foundation
import Kringle
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlBenchmark {
    /// Keeps `inFlight` requests outstanding until `count` have finished: each completion
    /// starts the next one. Returns how many failed.
    static func pump(count: Int, inFlight: Int, start: @escaping Pump.Start) -> Int {
        let pump = Pump(count: count, start: start)
        for _ in 0..<min(inFlight, count) {
            pump.launch()
        }
        pump.done.wait()
        return pump.failures
    }

    /// Starts requests one by one until `count` have been started, and signals when all
    /// have finished.
    final class Pump: Sendable {
        /// Starts one request and calls the completion with whether it succeeded.
        typealias Start = @Sendable (_ completion: @escaping @Sendable (Bool) -> Void) -> Void

        struct Progress {
            var started = 0
            var finished = 0
            var failures = 0
        }

        let done = DispatchSemaphore(value: 0)
        private let count: Int
        private let start: Start
        private let progress = Mutex(Progress())

        init(count: Int, start: @escaping Start) {
            self.count = count
            self.start = start
        }

        var failures: Int {
            progress.withLock { $0.failures }
        }

        /// Claims the next request, if any is left, and starts it.
        func launch() {
            let claimed = progress.withLock { state -> Bool in
                guard state.started < count else { return false }
                state.started += 1
                return true
            }
            guard claimed else { return }
            start { succeeded in
                let isLast = self.progress.withLock { state -> Bool in
                    state.finished += 1
                    if !succeeded { state.failures += 1 }
                    return state.finished == self.count
                }
                if isLast {
                    self.done.signal()
                } else {
                    self.launch()
                }
            }
        }
    }

    /// (a) URLSession with its own session, a delegate queue and completion handlers.
    final class URLSessionClient: Sendable {
        private let session: URLSession
        private let inFlight: Int

        init(inFlight: Int) {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 8
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            let queue = OperationQueue()
            queue.name = "benchmark.urlsession"
            session = URLSession(configuration: configuration, delegate: nil, delegateQueue: queue)
            self.inFlight = inFlight
        }

        func run(url: URL, count: Int) -> Int {
            let session = self.session
            return pump(count: count, inFlight: inFlight) { completion in
                session.dataTask(with: url) { data, response, error in
                    let status = (response as? HTTPURLResponse)?.statusCode
                    completion(error == nil && status == 200 && data?.isEmpty == false)
                }.resume()
            }
        }

        func invalidate() {
            session.finishTasksAndInvalidate()
        }
    }

    /// (b) `CurlTransport.send`, completions observed with `always`.
    final class CurlClient: Sendable {
        private let transport: CurlTransport
        private let inFlight: Int

        init(inFlight: Int) {
            transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 8))
            self.inFlight = inFlight
        }

        func run(url: URL, count: Int) -> Int {
            let transport = self.transport
            let request = HTTPRequest(url: url)
            return pump(count: count, inFlight: inFlight) { completion in
                let promise = transport.send(request)
                promise.always {
                    guard case .success(let response)? = promise.result else { return completion(false) }
                    completion(response.statusCode == 200 && !response.body.isEmpty)
                }
            }
        }
    }
}
