import Foundation
import Kringle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The Kringle side of `kringle-benchmarks websockets` (WebSocketBenchmark.swift), in a
// process of its own: `kringle-benchmarks websockets-child PORT COUNT on|off`.

extension WebSocketBenchmark {
    /// Measures `NetworkClient()` against the echo server on 127.0.0.1:PORT, with
    /// permessage-deflate offered (`on`) or not (`off`), the steps in ``WebSocketBenchmark``'s
    /// order; prints one ``Measurement`` as JSON.
    ///
    /// A batch that does not open within ``batchSeconds`` is reported as the first failure,
    /// with how far its connections got, and no more are opened; the measurement goes on
    /// with the connections that did open.
    static func runClient(_ arguments: [String]) throws {
        guard arguments.count == 3, let port = Int(arguments[0]), let count = Int(arguments[1]), count >= 2,
            let base = URL(string: "ws://127.0.0.1:\(port)")
        else { throw Failure("usage: websockets-child PORT COUNT on|off") }
        raiseDescriptorLimit()
        let client = NetworkClient()
        let endpoint = BenchmarkEndpoint(baseURL: base, path: "echo")
        var options = WebSocketOptions()
        options.offersCompression = arguments[2] == "on"
        var sequence = 0

        let probe = try client.webSocket(endpoint, options: options).wait(timeout: batchSeconds)
        let alone = try echoTimes(probe, from: &sequence)
        let aloneWaiting = try echoTimesWaiting(probe, from: &sequence)
        let before = ProcessStatus.now()

        var idle: [WebSocket] = []
        var failures = 0
        var firstFailure: String?
        let handshakes = Locked(0)
        let openStart = DispatchTime.now().uptimeNanoseconds
        opening: for first in stride(from: 0, to: count - 1, by: batch) {
            let numbers = first..<min(first + batch, count - 1)
            let promises = numbers.map { index in
                let text = message(sequence + index)
                return client.webSocket(endpoint, options: options)
                    .tap { _ in handshakes.update { $0 += 1 } }
                    .then { socket in socket.send(text: text).map { socket } }
                    .then { socket in socket.receive().map { reply in (socket, reply) } }
                    .map { socket, reply in
                        guard reply?.text == text else { throw Failure("the echo was \(String(describing: reply))") }
                        return socket
                    }
            }
            let deadline = DispatchTime.now() + batchSeconds
            var settled = 0
            for (index, promise) in zip(numbers, promises) {
                let now = DispatchTime.now().uptimeNanoseconds
                let left = Double(deadline.uptimeNanoseconds - min(deadline.uptimeNanoseconds, now)) / 1e9
                do {
                    idle.append(try promise.wait(timeout: left))
                    settled += 1
                } catch PromiseError.timedOut {
                    let pending = promises.count - settled
                    firstFailure =
                        firstFailure
                        ?? ("hung: of connections \(numbers.lowerBound + 2)–\(numbers.upperBound + 1) (opened at once after "
                            + "\(idle.count + 1) open), \(pending) had not opened and echoed after \(Int(batchSeconds)) s; "
                            + "\(handshakes.get() + 1) handshakes completed in all")
                    failures += pending
                    break opening
                } catch {
                    failures += 1
                    settled += 1
                    firstFailure = firstFailure ?? "connection \(index + 2) of \(count): \(error)"
                }
            }
        }
        sequence += count
        let openSeconds = Double(DispatchTime.now().uptimeNanoseconds - openStart) / 1e9
        Thread.sleep(forTimeInterval: idleSeconds)
        let after = ProcessStatus.now()

        let loaded = try echoTimes(probe, from: &sequence)
        let loadedWaiting = try echoTimesWaiting(probe, from: &sequence)

        let all = [probe] + idle
        let closeTiming = Timing.of { _ = try? Promise<[Void]>.all(all.map { $0.close() }).wait(timeout: batchSeconds) }
        let measurement = Measurement(
            opened: all.count, failures: failures, firstFailure: firstFailure, compressed: probe.isCompressed,
            residentBeforeKB: before.residentKB, residentAfterKB: after.residentKB,
            descriptorsBefore: before.descriptors, descriptorsAfter: after.descriptors,
            openSeconds: openSeconds, closeSeconds: closeTiming.wall, alone: alone, loaded: loaded,
            aloneWaiting: aloneWaiting, loadedWaiting: loadedWaiting)
        print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
    }

    /// ``warmUp`` then ``echoes`` timed echoes on `socket`, each `await`ing the send and the
    /// receive, from a task.
    private static func echoTimes(_ socket: WebSocket, from sequence: inout Int) throws -> Measurement.RoundTrips {
        let first = sequence
        sequence += warmUp + echoes
        let outcome = Locked<Result<[Double], any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                var times: [Double] = []
                times.reserveCapacity(echoes)
                for number in first..<(first + warmUp + echoes) {
                    let text = message(number)
                    let start = DispatchTime.now().uptimeNanoseconds
                    try await socket.send(text: text).value
                    let reply = try await socket.receive().value
                    let end = DispatchTime.now().uptimeNanoseconds
                    guard reply?.text == text else { throw Failure("the echo was \(String(describing: reply))") }
                    if number >= first + warmUp { times.append(Double(end - start) / 1000) }
                }
                outcome.set(.success(times))
            } catch {
                outcome.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        return summary(try outcome.get()!.get())
    }

    /// The same echoes with `wait()` on each promise from this thread.
    private static func echoTimesWaiting(_ socket: WebSocket, from sequence: inout Int) throws
        -> Measurement.RoundTrips
    {
        let first = sequence
        sequence += warmUp + echoes
        var times: [Double] = []
        times.reserveCapacity(echoes)
        for number in first..<(first + warmUp + echoes) {
            let text = message(number)
            let start = DispatchTime.now().uptimeNanoseconds
            try socket.send(text: text).wait()
            let reply = try socket.receive().wait()
            let end = DispatchTime.now().uptimeNanoseconds
            guard reply?.text == text else { throw Failure("the echo was \(String(describing: reply))") }
            if number >= first + warmUp { times.append(Double(end - start) / 1000) }
        }
        return summary(times)
    }

    /// The median and p99 of `times` (the same ranks as the Python script takes).
    private static func summary(_ times: [Double]) -> Measurement.RoundTrips {
        let sorted = times.sorted()
        return Measurement.RoundTrips(
            median: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }
}
