import CCurlShim

/// Whether the system's zlib could be loaded into this process, decided once (by the C
/// shim, under `pthread_once`) the first time a body is compressed.
///
/// zlib is opened with `dlopen` (`libz.so.1` on Linux, `/usr/lib/libz.1.dylib` on Apple
/// platforms), as libcurl is for ``CurlTransport``: Kringle links no `-lz` and needs no
/// headers, and a process without zlib gets ``CompressionFailure/zlibUnavailable(_:)``
/// when it asks for compression, never a crash.
public enum Zlib {
    /// Loads zlib if that has not been tried yet.
    ///
    /// - Returns: success, or ``CompressionFailure/zlibUnavailable(_:)`` naming every
    ///   library tried and why each one failed.
    public static func load() -> Result<Void, CompressionFailure> {
        if kzlib_load() == 1 {
            return .success(())
        }
        return .failure(.zlibUnavailable(String(cString: kzlib_load_error())))
    }

    /// The loaded library's `zlibVersion()`, such as "1.2.13", or `nil` when zlib cannot be
    /// loaded.
    public static var version: String? {
        guard kzlib_load() == 1 else { return nil }
        return String(cString: kzlib_version())
    }

    /// The name `dlopen` accepted, such as "libz.so.1", or `nil` when zlib cannot be loaded.
    public static var libraryName: String? {
        guard kzlib_load() == 1 else { return nil }
        return String(cString: kzlib_library_name())
    }
}
