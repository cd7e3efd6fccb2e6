import Foundation

// RFC 9111 §4.3: asking the server whether a stored response is still good, and updating it
// with the answer.

extension CachedResponse {
    /// The stored response's strong or weak entity tag, as sent (`"v1"`, `W/"v1"`).
    var entityTag: String? { headers["ETag"] }

    /// `request` made conditional on this response's validators (§4.3.1): `If-None-Match`
    /// with its entity tag, `If-Modified-Since` with its `Last-Modified`. Without validators
    /// the request goes unchanged, and only a full response can answer it.
    func conditionalRequest(for request: HTTPRequest) -> HTTPRequest {
        var conditional = request
        if let entityTag { conditional.headers["If-None-Match"] = entityTag }
        if let lastModified = headers["Last-Modified"] {
            conditional.headers["If-Modified-Since"] = lastModified
        }
        return conditional
    }

    /// Whether a `304` (or a `HEAD` response, §4.3.5) with `headers` is about this stored
    /// response (§4.3.4): the same entity tag when the answer has one, else the same
    /// `Last-Modified` when it has that.
    ///
    /// An answer with neither is taken to be about the response it validated, which is the
    /// only one a request from this cache names (RFC 9110 §13.1.2: a 304 says the
    /// condition matched). §4.3.4 would select only a stored response without validators;
    /// servers that leave the validators out of their 304s are common, and would then cost
    /// a second, unconditional request every time.
    func isSelected(by answer: HTTPHeaders) -> Bool {
        if let tag = answer["ETag"] {
            // §4.3.4: a strong validator selects the responses with that same strong
            // validator; a weak one, those that match it weakly.
            guard let entityTag else { return false }
            return Self.isWeak(tag) ? Self.weaklyEqual(entityTag, tag) : Self.stronglyEqual(entityTag, tag)
        }
        if let lastModified = answer["Last-Modified"] {
            return headers["Last-Modified"] == lastModified
        }
        return true
    }

    /// This response with the header fields of `answer` (a 304, or a HEAD response) added,
    /// each replacing the stored lines of its name (§3.2, §4.3.4), and its age counted anew
    /// from the exchange that brought the answer.
    ///
    /// Left as stored: `Content-Length` (§3.2: a 304 or HEAD says nothing of this body),
    /// the content coding fields our transports have already undone, and the hop-by-hop
    /// fields a cache never stores (§3.1).
    ///
    /// Always replaced, even by their absence: `Age` and `Date`, which describe the exchange
    /// that brought them (§4.2.3). An answer without `Age` comes with no age of its own, one
    /// without `Date` is dated by its arrival (RFC 9110 §6.6.1); the stored ones, kept, would
    /// count the time before the revalidation again.
    func updated(with answer: HTTPHeaders, requestDate: Date, responseDate: Date) -> CachedResponse {
        var updated = self
        let kept = Self.fieldsNeverUpdated.union(CacheStorability.connectionOptions(in: answer))
        let replacing = Set(answer.fields.map { $0.name.lowercased() }).subtracting(kept).union(["age", "date"])
        var merged = HTTPHeaders(
            headers.fields.filter { !replacing.contains($0.name.lowercased()) }.map {
                ($0.name, $0.value)
            })
        for field in answer.fields where replacing.contains(field.name.lowercased()) {
            merged.add(name: field.name, value: field.value)
        }
        updated.headers = merged
        updated.requestDate = requestDate
        updated.responseDate = responseDate
        return updated
    }

    /// Lower-cased names of what a revalidation never changes in a stored response.
    private static let fieldsNeverUpdated = CacheStorability.hopByHopFields.union([
        "content-length", "content-encoding", "trailer",
    ])

    /// Strong comparison of entity tags (RFC 9110 §8.8.3.2): neither weak, the same tag.
    static func stronglyEqual(_ lhs: String, _ rhs: String) -> Bool {
        !isWeak(lhs) && !isWeak(rhs)
            && lhs.trimmingCharacters(in: .whitespaces) == rhs.trimmingCharacters(in: .whitespaces)
    }

    private static func isWeak(_ tag: String) -> Bool {
        tag.trimmingCharacters(in: .whitespaces).hasPrefix("W/")
    }

    /// Weak comparison of entity tags (RFC 9110 §8.8.3.2): the same opaque tag, either or
    /// both marked weak.
    static func weaklyEqual(_ lhs: String, _ rhs: String) -> Bool {
        func opaque(_ tag: String) -> Substring {
            let trimmed = Substring(tag.trimmingCharacters(in: .whitespaces))
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        return opaque(lhs) == opaque(rhs)
    }
}
