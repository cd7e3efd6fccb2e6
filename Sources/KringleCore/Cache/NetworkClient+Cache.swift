import Foundation
@_spi(KringleInternals) import KringlePromise

// The cache's place in the pipeline: inside each hop of a client that has a cache (`Hop`),
// between the request as it is sent (cookies, interceptors' changes, validation done) and
// the transport. So a cached redirect is followed without the network, and a miss or a
// revalidation reaches the jar and the logs like any response.

extension NetworkClient {
    /// The answer to one hop's request: from the client's cache where RFC 9111 allows it,
    /// else from the transport (the cache updated with what it said).
    ///
    /// Only GET is answered from the cache. Downloads and uploads (anything streamed) go
    /// past it, though an unsafe one still invalidates (§4.4). Under
    /// ``CachePolicy/cacheOnly`` nothing the cache cannot answer reaches the network.
    ///
    /// - Parameter trace: The call's trace, for the exchange (``loggedExchange(_:options:trace:)``).
    func answer(_ request: ValidatedRequest, options: TransferOptions, from cache: HTTPCache, trace: CallTrace?)
        -> Promise<HTTPResponse>
    {
        let method = request.method
        var resolved = options
        if options.cachePolicy == .useProtocol { resolved.cachePolicy = request.request.cachePolicy }
        let options = resolved
        if options.cachePolicy == .cacheOnly, method != "GET" || options.isStreaming {
            return Promise(error: KringleError.notCached(request.url))
        }
        if CacheStorability.isUnsafe(method) {
            // Inline, on the thread the response arrives on: a cancellation a moment later
            // must not leave the old responses in place.
            return loggedExchange(request, options: options, trace: trace).mapResultInline { result in
                let response = try result.get()
                cache.invalidate(after: response, to: request.request)
                return response
            }
        }
        guard !options.isStreaming, method == "GET" || method == "HEAD" else {
            return loggedExchange(request, options: options, trace: trace)
        }
        guard cache.answersWithoutBlocking else {
            // A storage that may block (files) is used on the coding queue, never on the
            // caller's thread or the transport's.
            return Promise(()).then(on: Self.codingQueue) { _ in self.lookUp(request, options: options, in: cache) }
        }
        return lookUp(request, options: options, in: cache)
    }

    /// The stored answer to a GET or HEAD, or the network's, stored.
    private func lookUp(_ request: ValidatedRequest, options: TransferOptions, in cache: HTTPCache)
        -> Promise<HTTPResponse>
    {
        let clock = configuration.clock
        guard request.method != "HEAD" else {
            let requestDate = clock.now
            return afterExchange(request, options: options, cache: cache) { result in
                let response = try result.get()
                cache.freshen(
                    withHeadResponse: response, to: request.request, requestDate: requestDate,
                    responseDate: clock.now)
                return Promise(response)
            }
        }
        switch cache.lookup(request.request, policy: options.cachePolicy, now: clock.now) {
        case .answer(let stored):
            return served(stored, .hit, for: request.request)
        case .unavailable:
            return Promise(error: KringleError.notCached(request.url))
        case .load:
            return load(request, options: options, cache: cache)
        case .validate(let stored, let conditional):
            do {
                // The stored response's validators go into the request: checked like any field.
                let conditional = try ValidatedRequest(conditional)
                return validate(stored, sending: conditional, for: request, options: options, cache: cache)
            } catch {
                return Promise(error: error)
            }
        }
    }

    /// The network's answer, stored when §3 allows it.
    private func load(_ request: ValidatedRequest, options: TransferOptions, cache: HTTPCache) -> Promise<HTTPResponse>
    {
        let clock = configuration.clock
        let requestDate = clock.now
        return afterExchange(request, options: options, cache: cache) { result in
            let response = try result.get()
            cache.store(response, for: request.request, requestDate: requestDate, responseDate: clock.now)
            return Promise(response)
        }
    }

    /// §4.3: `stored` revalidated with the `conditional` request. A 304 about it updates it
    /// and answers with it (§4.3.4); a 304 about something else means it no longer
    /// describes the resource, so it goes and the request is sent unconditionally; a full
    /// response replaces it (§4.3.3); a server error (500, 502, 503, 504) or no answer
    /// serves it stale only where `stale-if-error` allows.
    private func validate(
        _ stored: CachedResponse, sending conditional: ValidatedRequest, for request: ValidatedRequest,
        options: TransferOptions,
        cache: HTTPCache
    ) -> Promise<HTTPResponse> {
        let clock = configuration.clock
        let requestDate = clock.now
        return afterExchange(conditional, options: options, cache: cache) { result in
            let now = clock.now
            let response: HTTPResponse
            do {
                response = try result.get()
            } catch {
                guard !error.isCancellation, HTTPCache.mayServeStale(stored, onErrorFor: request.request, at: now)
                else {
                    throw error
                }
                return self.served(stored, .staleOnError, for: request.request, exchange: nil)
            }
            if response.statusCode == 304 {
                guard stored.isSelected(by: response.headers) else {
                    cache.remove(stored)
                    return self.load(request, options: options, cache: cache)
                }
                var updated = stored.updated(with: response.headers, requestDate: requestDate, responseDate: now)
                // A 304 may change `Vary` (§4.3.4 updates every field): select by the new one.
                updated.varyingRequestHeaders = CacheVary.varyingValues(of: request.request, for: updated.headers)
                cache.replace(stored, with: updated)
                return self.served(updated, .revalidated, for: request.request, exchange: response)
            }
            if HTTPCache.errorStatuses.contains(response.statusCode),
                HTTPCache.mayServeStale(stored, onErrorFor: request.request, at: now)
            {
                return self.served(stored, .staleOnError, for: request.request, exchange: response)
            }
            cache.store(response, for: request.request, requestDate: requestDate, responseDate: now)
            return Promise(response)
        }
    }

    /// The transport's answer to `request`, then `settle` with it: inline for a storage in
    /// memory, on the coding queue for one that may block.
    private func afterExchange(
        _ request: ValidatedRequest, options: TransferOptions, cache: HTTPCache,
        _ settle: @escaping @Sendable (Result<HTTPResponse, any Error>) throws -> Promise<HTTPResponse>
    ) -> Promise<HTTPResponse> {
        // A revalidation's queue span ends with its hop (Hop.swift), not as the transport takes it.
        let exchanged = loggedExchange(request, options: options, trace: nil)
        guard !cache.answersWithoutBlocking else { return exchanged.flatMapResultInline(settle) }
        return exchanged.flatMapResultInline { result in
            Promise(()).then(on: Self.codingQueue) { _ in try settle(result) }
        }
    }

    /// `stored` as the response to `request`, with its current `Age` (RFC 9111 §5.1), once
    /// it has been logged.
    ///
    /// - Parameter exchange: The network exchange that led to it (the 304, the error), for
    ///   the call's metrics and the cookie jar; `nil` for none.
    private func served(
        _ stored: CachedResponse, _ status: CacheStatus, for request: HTTPRequest, exchange: HTTPResponse? = nil
    ) -> Promise<HTTPResponse> {
        var headers = stored.headers
        headers.remove(name: "Age")
        headers.add(name: "Age", value: String(Int(stored.currentAge(at: configuration.clock.now))))
        var response = HTTPResponse(
            statusCode: stored.statusCode, headers: headers, body: stored.body, url: request.url,
            metrics: exchange?.metrics)
        response.cacheStatus = status
        response.setCookieFromNetwork = exchange?.headers.values(for: "Set-Cookie") ?? []
        return logging(response, answeredBy: status, for: request)
    }
}
