import CCurlShim
import Foundation

extension EasyHandle {
    /// What curl measured of the finished transfer (`curl_easy_getinfo`), ending now.
    ///
    /// curl's times are microseconds from the transfer's start; on a reused connection the
    /// lookup and connect times read zero, and so do the TLS times of plain `http`: those
    /// moments did not happen, and are `nil`.
    func metrics(decodedBodyBytes: Int64) -> TransferMetrics {
        let total = seconds(KCURLINFO_TOTAL_TIME_T) ?? 0
        let reused = longInfo(KCURLINFO_NUM_CONNECTS).map { $0 == 0 }
        let happened = { (time: TimeInterval?) in reused == true ? nil : time.flatMap { $0 > 0 ? $0 : nil } }
        let headBytes = longInfo(KCURLINFO_REQUEST_SIZE).map(Int64.init)
        let responseHeadBytes = longInfo(KCURLINFO_HEADER_SIZE).map(Int64.init)
        return TransferMetrics(
            start: Date(timeIntervalSinceNow: -total),
            total: total,
            domainLookup: happened(seconds(KCURLINFO_NAMELOOKUP_TIME_T)),
            connect: happened(seconds(KCURLINFO_CONNECT_TIME_T)),
            secureConnect: happened(seconds(KCURLINFO_APPCONNECT_TIME_T)),
            requestSent: seconds(KCURLINFO_PRETRANSFER_TIME_T),
            firstResponseByte: seconds(KCURLINFO_STARTTRANSFER_TIME_T).flatMap { $0 > 0 ? $0 : nil },
            requestBytes: headBytes.map { $0 + max(0, uploadedBytes) },
            responseBytes: responseHeadBytes.map { $0 + max(0, downloadedBytes) },
            decodedBodyBytes: decodedBodyBytes,
            httpVersion: longInfo(KCURLINFO_HTTP_VERSION).flatMap(Self.httpVersion),
            remoteAddress: primaryAddress,
            remotePort: longInfo(KCURLINFO_PRIMARY_PORT).flatMap { $0 > 0 ? $0 : nil },
            reusedConnection: reused
        )
    }

    /// `CURL_HTTP_VERSION_*` as libcurl reports the version used.
    private static func httpVersion(_ code: Int) -> HTTPVersion? {
        switch code {
        case 1: .http1_0
        case 2: .http1_1
        case 3: .http2
        case 30: .http3
        default: nil
        }
    }

    private var primaryAddress: String? {
        var text: UnsafePointer<CChar>?
        guard kcurl_easy_getinfo_string(pointer, KCURLINFO_PRIMARY_IP, &text) == KCURLE_OK, let text else {
            return nil
        }
        let address = String(cString: text)
        return address.isEmpty ? nil : address
    }

    private func longInfo(_ info: kcurl_info) -> Int? {
        var value = 0
        guard kcurl_easy_getinfo_long(pointer, info, &value) == KCURLE_OK else { return nil }
        return value
    }

    private func seconds(_ info: kcurl_info) -> TimeInterval? {
        var microseconds: Int64 = 0
        guard kcurl_easy_getinfo_off_t(pointer, info, &microseconds) == KCURLE_OK, microseconds >= 0 else {
            return nil
        }
        return TimeInterval(microseconds) / 1e6
    }
}
