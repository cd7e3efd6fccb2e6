import CCurlShim
import Foundation

/// Whether libcurl could be loaded into this process, decided once (by the C shim, under
/// `pthread_once`) the first time anyone asks.
enum CurlLibrary {
    /// Loads libcurl if that has not been tried yet; the failure explains which library
    /// names were tried and why each one failed.
    static func load() -> Result<Void, CurlError> {
        if kcurl_load() == 1 {
            return .success(())
        }
        let reason = String(cString: kcurl_load_error())
        return .failure(CurlError(code: CurlError.failedInitialization, message: reason))
    }

    /// The loaded library's `curl_version()` text, such as "libcurl/7.88.1 OpenSSL/3.0.15 …".
    static var version: String? {
        guard kcurl_load() == 1 else { return nil }
        return String(cString: kcurl_version())
    }

    /// Tries to open each name with `dlopen`, without touching the library already loaded;
    /// for diagnostics and tests of the failure message.
    ///
    /// - Returns: the first name that opened (or `nil`) and what was tried.
    static func probe(_ names: [String]) -> (opened: String?, report: String) {
        // C strings that outlive the call; strdup'd copies keep the code free of nested closures.
        let copies: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } }
        var report = [CChar](repeating: 0, count: 2048)
        let index = kcurl_probe(pointers, Int32(pointers.count), &report, report.count)
        let text = String(decoding: report.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (index >= 0 ? names[Int(index)] : nil, text)
    }
}
