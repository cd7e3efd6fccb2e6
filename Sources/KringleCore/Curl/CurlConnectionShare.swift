import CCurlShim

/// A share handle that holds one WebSocket's connection, apart from the multi handle's cache.
///
/// Detached from its easy handle (``detach(from:)``) before it is freed: curl refuses to free
/// a share still in use.
final class CurlConnectionShare {
    private let pointer: OpaquePointer

    init?() {
        guard let pointer = kcurl_connection_share_create() else { return nil }
        self.pointer = pointer
    }

    func attach(to easy: EasyHandle) throws(CurlError) {
        let code = kcurl_easy_setopt_share(easy.pointer, pointer)
        guard code == 0 else {
            throw CurlError(code: Int(code), message: String(cString: kcurl_easy_strerror(code)))
        }
    }

    /// Takes the share from `easy`, which must be out of the multi handle: its connection
    /// was closed there.
    func detach(from easy: EasyHandle) {
        _ = kcurl_easy_setopt_share(easy.pointer, nil)
    }

    deinit {
        kcurl_connection_share_destroy(pointer)
    }
}
