import CCurlShim
import Foundation

/// One curl easy handle and its error buffer, reused from transfer to transfer: the options
/// set on it, and what curl reports of the transfer it ran (`curl_easy_getinfo`, the
/// ``TransferMetrics`` below).
///
/// Confined to the driving thread. Between transfers the handle is `curl_easy_reset`, which
/// clears every option (so nothing sticks from the previous request) while the multi handle
/// keeps the connections for reuse; except after a plain transfer, whose options the next
/// plain transfer of the same shape sets again one by one (``keptShape``).
final class EasyHandle {
    let pointer: OpaquePointer
    /// `CURLOPT_ERRORBUFFER`: curl writes a specific message here when a transfer fails.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Creates a handle; `nil` when curl cannot (out of memory).
    init?() {
        guard let pointer = kcurl_easy_init() else { return nil }
        self.pointer = pointer
        errorBuffer = .allocate(capacity: Int(KCURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(KCURL_ERROR_SIZE))
    }

    deinit {
        kcurl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    /// curl's message for the last failure, or "" when it wrote none.
    var errorMessage: String {
        String(cString: errorBuffer)
    }

    /// The shape of the plain transfer whose options the handle still holds, when it was
    /// given back without a reset (``CurlTransfer/plainShape``); `nil` once reset. Until the
    /// next transfer sets its own, the header list and the callbacks' data point at what the
    /// last one freed: curl reads them only while a transfer runs.
    var keptShape: CurlTransfer.PlainShape?

    /// Forgets every option set for the previous transfer.
    func reset() {
        kcurl_easy_reset(pointer)
        keptShape = nil
    }

    /// Points curl at the error buffer (after a reset it points nowhere) and clears it.
    func attachErrorBuffer() throws(CurlError) {
        clearErrorBuffer()
        try set(KCURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(errorBuffer))
    }

    /// Clears the message of the previous transfer, for a handle whose error buffer is
    /// attached already.
    func clearErrorBuffer() {
        errorBuffer[0] = 0
    }

    func set(_ option: kcurl_option, _ value: Int) throws(CurlError) {
        try check(kcurl_easy_setopt_long(pointer, option, value), option)
    }

    func set(_ option: kcurl_option, _ value: Bool) throws(CurlError) {
        try set(option, value ? 1 : 0)
    }

    func set(_ option: kcurl_option, pointer value: UnsafeRawPointer?) throws(CurlError) {
        try check(kcurl_easy_setopt_pointer(pointer, option, value), option)
    }

    /// Sets a string option; curl copies strings (since 7.17), so the text need not outlive
    /// the call.
    func set(_ option: kcurl_option, _ value: String) throws(CurlError) {
        let code = value.withCString { kcurl_easy_setopt_pointer(pointer, option, $0) }
        try check(code, option)
    }

    /// Sets a blob option; curl copies the bytes (`CURL_BLOB_COPY`), so they need not outlive
    /// the call.
    func set(_ option: kcurl_option, blob: Data) throws(CurlError) {
        let code = blob.withUnsafeBytes { bytes in
            kcurl_easy_setopt_blob(pointer, option, bytes.baseAddress, bytes.count)
        }
        try check(code, option)
    }

    func set(_ option: kcurl_option, offset value: Int64) throws(CurlError) {
        try check(kcurl_easy_setopt_off_t(pointer, option, value), option)
    }

    func set(_ option: kcurl_option, callback: kcurl_data_callback) throws(CurlError) {
        try check(kcurl_easy_setopt_callback(pointer, option, callback), option)
    }

    func set(_ option: kcurl_option, progress: kcurl_xferinfo_callback) throws(CurlError) {
        try check(kcurl_easy_setopt_xferinfo(pointer, option, progress), option)
    }

    func set(_ option: kcurl_option, seek: kcurl_seek_callback) throws(CurlError) {
        try check(kcurl_easy_setopt_seek(pointer, option, seek), option)
    }

    /// Whether the transfer got as far as a ready connection (`CURLINFO_PRETRANSFER_TIME_T`
    /// is set once the host was resolved, connected, tunnelled and TLS done, or a connection
    /// was reused): a timeout before then ran out while connecting.
    var connectionWasReady: Bool {
        (seconds(KCURLINFO_PRETRANSFER_TIME_T) ?? 0) > 0
    }

    /// `CURLINFO_RESPONSE_CODE`; 0 when no response arrived.
    var responseCode: Int {
        longInfo(KCURLINFO_RESPONSE_CODE) ?? 0
    }

    /// `CURLINFO_REQUEST_SIZE`: bytes of request heads sent; 0 until a request went out.
    var requestHeadBytes: Int {
        longInfo(KCURLINFO_REQUEST_SIZE) ?? 0
    }

    /// `CURLINFO_SIZE_UPLOAD_T`: body bytes sent.
    var uploadedBytes: Int64 {
        offsetInfo(KCURLINFO_SIZE_UPLOAD_T)
    }

    /// `CURLINFO_SIZE_DOWNLOAD_T`: body bytes received (as sent, before decoding).
    var downloadedBytes: Int64 {
        offsetInfo(KCURLINFO_SIZE_DOWNLOAD_T)
    }

    /// `CURLINFO_CONTENT_LENGTH_DOWNLOAD_T`: the announced length, or -1 when unknown.
    var expectedDownloadBytes: Int64 {
        offsetInfo(KCURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
    }

    /// `CURLINFO_HTTP_CONNECTCODE`: the status a proxy answered a `CONNECT` with; 0 when
    /// no tunnel was asked for.
    var proxyConnectCode: Int {
        longInfo(KCURLINFO_HTTP_CONNECTCODE) ?? 0
    }

    /// `CURLINFO_OS_ERRNO`: the system's `errno` of the last failed connect, or 0.
    var connectErrno: Int32 {
        Int32(truncatingIfNeeded: longInfo(KCURLINFO_OS_ERRNO) ?? 0)
    }

    /// `CURLINFO_EFFECTIVE_URL` when it is not `url` (compared as C strings, so that the usual
    /// answer, the same URL, makes no String).
    func effectiveURL(ifOtherThan url: String) -> String? {
        var text: UnsafePointer<CChar>?
        guard kcurl_easy_getinfo_string(pointer, KCURLINFO_EFFECTIVE_URL, &text) == KCURLE_OK, let text,
            url.withCString({ strcmp($0, text) }) != 0
        else { return nil }
        return String(cString: text)
    }

    private func longInfo(_ info: kcurl_info) -> Int? {
        var value = 0
        guard kcurl_easy_getinfo_long(pointer, info, &value) == KCURLE_OK else { return nil }
        return value
    }

    private func stringInfo(_ info: kcurl_info) -> String? {
        var text: UnsafePointer<CChar>?
        guard kcurl_easy_getinfo_string(pointer, info, &text) == KCURLE_OK, let text else { return nil }
        return String(cString: text)
    }

    private func offsetInfo(_ info: kcurl_info) -> Int64 {
        var value: Int64 = 0
        guard kcurl_easy_getinfo_off_t(pointer, info, &value) == KCURLE_OK else { return -1 }
        return value
    }

    private func check(_ code: Int32, _ option: kcurl_option) throws(CurlError) {
        guard code != KCURLE_OK else { return }
        let reason = String(cString: kcurl_easy_strerror(code))
        throw CurlError(code: Int(code), message: "setting curl option \(option.rawValue) failed: \(reason)")
    }
}

// MARK: - Metrics

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
        stringInfo(KCURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 }
    }

    private func seconds(_ info: kcurl_info) -> TimeInterval? {
        var microseconds: Int64 = 0
        guard kcurl_easy_getinfo_off_t(pointer, info, &microseconds) == KCURLE_OK, microseconds >= 0 else {
            return nil
        }
        return TimeInterval(microseconds) / 1e6
    }
}
