import Foundation

/// Which requests the driving thread hands to libcurl now, and which wait their turn.
///
/// libcurl can queue transfers itself (`CURLMOPT_MAX_HOST_CONNECTIONS`), but a transfer
/// waiting there holds a whole easy handle with its buffers (about 14 KB each), and libcurl
/// 7.88 checks its time-out only once it has a connection. Here a waiting request is its
/// ``CurlSubmission`` alone (the plan and the promise), in a first-in, first-out queue per
/// host; it gets a handle when it may start, and cancelling it never touches libcurl.
///
/// At most `perHost` transfers run to one host (scheme, host and port) and `total` across
/// all hosts; when the total is what holds requests back, hosts take turns. Only the
/// driving thread uses it, so it needs no lock.
struct CurlAdmission {
    /// The requests of one host: how many run, and the ones waiting, oldest first.
    private struct Host {
        var running = 0
        /// Waiting ids from `head` on; an id no longer in `waiting` left the queue early.
        var queue: [UInt64] = []
        var head = 0
        /// Whether the host is in `turns`.
        var hasTurn = false

        var hasQueued: Bool { head < queue.count }
    }

    private let perHost: Int
    private let total: Int
    private var hosts: [Substring: Host] = [:]
    /// Every waiting request by id; its host's queue keeps the order.
    private var waiting: [UInt64: CurlSubmission] = [:]
    /// Hosts with a request waiting only for room under `total`, in the order they got
    /// there; a host goes to the back after each start.
    private var turns: [Substring] = []
    private var turnsHead = 0
    /// Transfers started and not yet ended.
    private(set) var running = 0

    /// - Parameters:
    ///   - perHost: the most transfers to one host; `nil` or less than 1 for no limit.
    ///   - total: the most transfers at once; `nil` or less than 1 for no limit.
    init(perHost: Int?, total: Int?) {
        self.perHost = perHost.flatMap { $0 > 0 ? $0 : nil } ?? .max
        self.total = total.flatMap { $0 > 0 ? $0 : nil } ?? .max
    }

    /// How many requests wait.
    var waitingCount: Int { waiting.count }

    /// Per host (its key, the scheme, host and port as the request URL spells them), the
    /// transfers running and the requests waiting; hosts with neither are left out.
    var hostCounts: [(host: Substring, running: Int, queued: Int)] {
        hosts.compactMap { key, host in
            let queued = host.queue[host.head...].count { waiting[$0] != nil }
            return host.running == 0 && queued == 0 ? nil : (key, host.running, queued)
        }
    }

    /// Whether nothing runs and nothing waits.
    var isIdle: Bool { running == 0 && waiting.isEmpty }

    /// Takes a new request: `true` when it may start now (it then counts as running),
    /// `false` when it waits behind others.
    mutating func arrive(_ submission: CurlSubmission) -> Bool {
        let key = submission.hostKey
        var host = hosts[key, default: Host()]
        defer { hosts[key] = host }
        // Behind a queue, even with room: requests start in the order they came.
        if !host.hasQueued, host.running < perHost, running < total {
            host.running += 1
            running += 1
            return true
        }
        host.queue.append(submission.id)
        waiting[submission.id] = submission
        if host.running < perHost, !host.hasTurn {
            host.hasTurn = true
            turns.append(key)
        }
        return false
    }

    /// Counts a transfer to `hostKey` as ended, which makes room for a waiting one.
    mutating func end(hostKey: Substring) {
        guard var host = hosts[hostKey] else { return }
        host.running -= 1
        running -= 1
        if host.hasQueued, !host.hasTurn {
            host.hasTurn = true
            turns.append(hostKey)
        }
        store(host, for: hostKey)
    }

    /// The next waiting request that may start now, counted as running; `nil` when none
    /// may.
    mutating func next() -> CurlSubmission? {
        while running < total, turnsHead < turns.count {
            let key = turns[turnsHead]
            turnsHead += 1
            if turnsHead == turns.count {
                turns.removeAll(keepingCapacity: true)
                turnsHead = 0
            }
            guard var host = hosts[key] else { continue }
            host.hasTurn = false
            let started = popQueued(from: &host)
            if started != nil {
                host.running += 1
                running += 1
            }
            // Still waiting requests and room for them: back of the line, so that other
            // hosts get their turn under the total limit.
            if host.hasQueued, host.running < perHost {
                host.hasTurn = true
                turns.append(key)
            }
            store(host, for: key)
            if let started { return started }
        }
        return nil
    }

    /// Takes a waiting request out of its queue (cancelled, or out of time); `nil` when it
    /// does not wait (it runs, ended, or never came).
    mutating func remove(_ id: UInt64) -> CurlSubmission? {
        guard let submission = waiting.removeValue(forKey: id) else { return nil }
        // Its id stays in the host's queue until `popQueued` passes it; a host whose queue
        // holds nothing else is let go now.
        let key = submission.hostKey
        if var host = hosts[key] {
            compact(&host)
            store(host, for: key)
        }
        return submission
    }

    /// Every waiting request, taken out (the driver failed, or shuts down with a fault).
    mutating func removeAllWaiting() -> [CurlSubmission] {
        let all = Array(waiting.values)
        waiting.removeAll()
        for (key, host) in hosts {
            var emptied = host
            emptied.queue = []
            emptied.head = 0
            store(emptied, for: key)
        }
        return all.sorted { $0.id < $1.id }
    }

    /// The oldest request still waiting in `host`'s queue, taken out of it.
    private mutating func popQueued(from host: inout Host) -> CurlSubmission? {
        while host.hasQueued {
            let id = host.queue[host.head]
            host.head += 1
            if let submission = waiting.removeValue(forKey: id) {
                compact(&host)
                return submission
            }
        }
        compact(&host)
        return nil
    }

    /// Drops the ids the queue has passed, and the ids of requests that left it, once
    /// they are half of it, so that a long queue does not keep them all.
    private func compact(_ host: inout Host) {
        while host.hasQueued, waiting[host.queue[host.head]] == nil {
            host.head += 1
        }
        if !host.hasQueued {
            host.queue.removeAll(keepingCapacity: host.queue.capacity <= 64)
            host.head = 0
        } else if host.head > 32, host.head * 2 > host.queue.count {
            host.queue.removeFirst(host.head)
            host.head = 0
        }
    }

    /// Keeps `host`, or lets it go when nothing of it runs or waits (a client that talks
    /// to many hosts in turn keeps no entry for each).
    private mutating func store(_ host: Host, for key: Substring) {
        if host.running == 0, !host.hasQueued, !host.hasTurn {
            hosts.removeValue(forKey: key)
        } else {
            hosts[key] = host
        }
    }
}

extension CurlAdmission {
    /// The key requests to one server share: the URL's scheme, host and port, in lower
    /// case, without the scheme's default port (RFC 3986 §6.2.3), so that
    /// `http://Example.com/` and `http://example.com:80/x` wait in the same queue. User
    /// information (`user:pass@`) is left out.
    ///
    /// Read from the URL text curl is given, which is cheaper than asking `URL` for its
    /// parts; a URL already in that form (the usual case) gives a slice of its own text,
    /// with nothing allocated.
    static func hostKey(ofURL url: String) -> Substring {
        // The usual case on the bytes themselves; String.Index arithmetic costs several
        // times as much per byte. Offsets into a native string's UTF-8 are its indices.
        if let plainEnd = url.utf8.withContiguousStorageIfAvailable(Self.plainKeyEnd), let plainEnd {
            return url[..<url.utf8.index(url.utf8.startIndex, offsetBy: plainEnd)]
        }
        let utf8 = url.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return Substring(url.lowercased()) }
        var start = utf8.index(after: colon)
        // "//" then the authority, up to the path, query or fragment.
        while start < utf8.endIndex, utf8[start] == UInt8(ascii: "/") { start = utf8.index(after: start) }
        let end =
            utf8[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? utf8.endIndex
        let scheme = utf8[..<colon]
        let authority = utf8[start..<end]
        let isPlain =
            !scheme.contains(where: Self.isUpperCase) && !authority.contains(where: Self.isUpperCase)
            && !authority.contains(UInt8(ascii: "@")) && Self.defaultPortSuffix(of: authority, scheme: scheme) == nil
        if isPlain { return url[..<end] }
        var host = authority
        if let at = host.lastIndex(of: UInt8(ascii: "@")) { host = host[host.index(after: at)...] }
        if let suffix = Self.defaultPortSuffix(of: host, scheme: scheme) { host = host[..<suffix] }
        return Substring((String(Substring(scheme)) + "://" + String(Substring(host))).lowercased())
    }

    /// Where the authority of `url` ends when the URL up to there is already its own key: no
    /// upper case in the scheme or authority, no user information, no default port.
    private static func plainKeyEnd(_ url: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let colon = url.firstIndex(of: UInt8(ascii: ":")),
            !url[..<colon].contains(where: Self.isUpperCase)
        else { return nil }
        var start = colon + 1
        while start < url.count, url[start] == UInt8(ascii: "/") { start += 1 }
        var end = start
        while end < url.count {
            let byte = url[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if Self.isUpperCase(byte) || byte == UInt8(ascii: "@") { return nil }
            end += 1
        }
        let port: StaticString
        switch colon {
        case 4: port = ":80"
        case 5: port = ":443"
        default: return end
        }
        let suffix = UnsafeBufferPointer(start: port.utf8Start, count: port.utf8CodeUnitCount)
        if end - start > suffix.count, url[(end - suffix.count)..<end].elementsEqual(suffix) { return nil }
        return end
    }

    private static func isUpperCase(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }

    /// Where `:80` (for http) or `:443` (for https) ends `authority`, if it does.
    private static func defaultPortSuffix(of authority: Substring.UTF8View, scheme: Substring.UTF8View) -> String.Index?
    {
        let port: String
        switch scheme.count {
        case 4: port = ":80"
        case 5: port = ":443"
        default: return nil
        }
        guard authority.count > port.utf8.count, authority.reversed().starts(with: port.utf8.reversed()) else {
            return nil
        }
        return authority.index(authority.endIndex, offsetBy: -port.utf8.count)
    }
}
