import Foundation
@_spi(KringleInternals) import KringlePromise

/// A response whose body arrives as it is received: an `AsyncSequence` of `Data` chunks,
/// with the status and header fields before the first chunk.
///
/// ```swift
/// let stream = client.stream(Logs.tail)
/// print(try await stream.response.statusCode)
/// for try await chunk in stream {
///     handle(chunk)
/// }
/// ```
///
/// The transfer moves no faster than the loop takes chunks: when the loop is slower than
/// the network, the transport holds the transfer back (about 1 MiB waits at most), so a
/// body of any size costs flat memory. Leaving the loop early (once its iterator is released:
/// in a function; top-level script code keeps it, so call ``cancel()`` there), or cancelling
/// its task, stops the transfer at once. Iterate a stream once; ``lines`` and ``decodedLines(as:decoder:maximumLength:)`` are
/// other ways to iterate the same body.
public struct ResponseStream: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = Data

    let state: State

    init(started: Promise<Started>, channels: StreamChannels, url: URL) {
        state = State(started: started, channels: channels, url: url)
    }

    /// The final response's status, header fields, URL and metrics (after redirects, the
    /// status accepted), as soon as its head has arrived; `value` is empty. It throws what
    /// the request failed with: an unacceptable status rejects with
    /// ``KringleError/unacceptableStatusCode(_:_:)`` carrying the start of the body, as any
    /// request does.
    public var response: Response<Void> {
        get async throws { try await state.started.value.response }
    }

    /// Stops the transfer, wherever it is.
    public func cancel() {
        state.cancel()
    }

    /// An iterator over the sequence; iterate once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: Reader(state: state))
    }

    /// Takes the chunks one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: Reader

        /// The next chunk, or `nil` after the last.
        public mutating func next() async throws -> Data? {
            try await reader.next()
        }
    }

    /// What the pipeline hands over once the head was accepted.
    struct Started: Sendable {
        var response: Response<Void>
        var channel: ResponseBodyChannel
    }

    /// The stream's request and body, shared by the stream and its iterator; whoever lets
    /// go of it last stops a transfer still running.
    final class State: Sendable {
        let started: Promise<Started>
        /// Every hop's body channel: cancelling them stops the transfer whatever stage the
        /// call has reached.
        let channels: StreamChannels
        /// The request's URL, for errors before the final one is known.
        let url: URL

        init(started: Promise<Started>, channels: StreamChannels, url: URL) {
            self.started = started
            self.channels = channels
            self.url = url
        }

        deinit {
            cancel()
        }

        func cancel() {
            started.cancel()
            channels.cancelAll()
        }

        /// The URL that answered, once known.
        var responseURL: URL {
            if case .success(let started)? = started.result { return started.response.url }
            return url
        }
    }

    /// One iteration of the body: when it is dropped (the loop was left early), the transfer
    /// stops.
    final class Reader: Sendable {
        let state: State

        init(state: State) {
            self.state = state
        }

        deinit {
            state.cancel()  // a body read to its end stops nothing
        }

        func next() async throws -> Data? {
            try await state.started.value.channel.next()
        }
    }
}
