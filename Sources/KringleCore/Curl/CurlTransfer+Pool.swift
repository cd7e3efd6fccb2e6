import CCurlShim
import Foundation

extension CurlTransfer {
    /// The connection pool's ages, DNS overrides and the IP version: options set only when a
    /// configuration departs from libcurl's defaults, so the default path sets one, the
    /// connections' lifetime (300 s, where libcurl has no limit).
    ///
    /// - Throws: `KringleError.invalidRequest` for a malformed ``CurlTransport/DNSOverride``;
    ///   ``CurlError`` when curl refuses an option.
    func configurePoolAndAddresses(_ configuration: CurlTransport.Configuration) throws {
        if let idle = configuration.maximumIdleConnections, idle <= 0 {
            // Zero keeps none: each connection closes once its transfer is done
            // (`CURLMOPT_MAXCONNECTS` 0 would mean no limit at all).
            try easy.set(KCURLOPT_FORBID_REUSE, true)
        }
        if configuration.idleConnectionTimeout != Self.libcurlIdleConnectionTimeout {
            try easy.set(KCURLOPT_MAXAGE_CONN, Self.wholeSeconds(configuration.idleConnectionTimeout))
        }
        if let lifetime = configuration.maximumConnectionLifetime {
            // libcurl 7.80 and later; an older one does not know the option, and has no
            // other way to do it.
            try? easy.set(KCURLOPT_MAXLIFETIME_CONN, Self.wholeSeconds(lifetime))
        }
        switch configuration.ipVersion {
        case .any: break
        case .v4: try easy.set(KCURLOPT_IPRESOLVE, Int(KCURL_IPRESOLVE_V4))
        case .v6: try easy.set(KCURLOPT_IPRESOLVE, Int(KCURL_IPRESOLVE_V6))
        }
        guard !configuration.dnsOverrides.isEmpty else { return }
        var list: OpaquePointer?
        for override in configuration.dnsOverrides {
            let entry = try override.curlEntry()
            guard let longer = entry.withCString({ kcurl_slist_append(list, $0) }) else {
                if let list { kcurl_slist_free_all(list) }
                throw CurlError(
                    code: CurlError.failedInitialization, message: "out of memory building the DNS overrides")
            }
            list = longer
        }
        resolveList = list
        try easy.set(KCURLOPT_RESOLVE, pointer: list.map { UnsafeRawPointer($0) })
    }

    /// How long libcurl keeps an idle connection when not told (`CURLOPT_MAXAGE_CONN`).
    static let libcurlIdleConnectionTimeout: TimeInterval = 118

    /// Seconds as curl's whole-second options take them: rounded up, at least 1 (curl
    /// reads 0 as its default), at most a long's worth.
    private static func wholeSeconds(_ interval: TimeInterval) -> Int {
        guard interval.isFinite, interval > 0 else { return 1 }
        return Int(min(interval.rounded(.up), Double(Int32.max)))
    }
}
