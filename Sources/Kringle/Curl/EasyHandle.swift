import CCurlShim
import Foundation

/// One curl easy handle and its error buffer, reused from transfer to transfer.
///
/// Confined to the driving thread. Between transfers the handle is `curl_easy_reset`, which
/// clears every option (so nothing sticks from the previous request, and no option points at
/// freed memory) while the multi handle keeps the connections for reuse.
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

    /// Forgets every option set for the previous transfer.
    func reset() {
        kcurl_easy_reset(pointer)
    }

    /// Points curl at the error buffer (after a reset it points nowhere) and clears it.
    func attachErrorBuffer() throws(CurlError) {
        errorBuffer[0] = 0
        try set(KCURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(errorBuffer))
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

    /// `CURLINFO_RESPONSE_CODE`; 0 when no response arrived.
    var responseCode: Int {
        var code = 0
        guard kcurl_easy_getinfo_long(pointer, KCURLINFO_RESPONSE_CODE, &code) == KCURLE_OK else { return 0 }
        return code
    }

    /// `CURLINFO_REQUEST_SIZE`: bytes of request heads sent; 0 until a request went out.
    var requestHeadBytes: Int {
        var size = 0
        guard kcurl_easy_getinfo_long(pointer, KCURLINFO_REQUEST_SIZE, &size) == KCURLE_OK else { return 0 }
        return size
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

    /// `CURLINFO_EFFECTIVE_URL`: the URL curl last used.
    var effectiveURL: String? {
        var text: UnsafePointer<CChar>?
        guard kcurl_easy_getinfo_string(pointer, KCURLINFO_EFFECTIVE_URL, &text) == KCURLE_OK, let text else {
            return nil
        }
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
