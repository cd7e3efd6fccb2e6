import CCurlShim

/// The C functions curl calls back into. Each receives the object it works for as an
/// unretained `Unmanaged` pointer (`CURLOPT_WRITEDATA`, `CURLOPT_HEADERDATA`,
/// `CURLOPT_READDATA`…); the transfer keeps those objects alive for as long as the easy
/// handle points at them.
enum CurlCallbacks {
    /// `CURLOPT_WRITEFUNCTION`: body bytes, for the ``ResponseCollector``. Returning fewer
    /// bytes than given aborts the transfer, which is what a failed file write must do;
    /// `CURL_WRITEFUNC_PAUSE` keeps the bytes in curl and pauses the transfer until
    /// `curl_easy_pause` resumes it, which is how a slow reader holds the network back.
    static let body: kcurl_data_callback = { buffer, size, count, userdata in
        let length = size * count
        guard let userdata, let buffer, length > 0 else { return length }
        let collector = Unmanaged<ResponseCollector>.fromOpaque(userdata).takeUnretainedValue()
        switch collector.receive(body: UnsafeRawBufferPointer(start: buffer, count: length)) {
        case .taken: return length
        case .stop: return 0
        case .pause: return Int(KCURL_WRITEFUNC_PAUSE)
        }
    }

    /// `CURLOPT_READFUNCTION`: the next bytes of a streamed body, from the ``UploadSource``.
    static let read: kcurl_data_callback = { buffer, size, count, userdata in
        guard let userdata, let buffer else { return Int(KCURL_READFUNC_ABORT) }
        let source = Unmanaged<UploadSource>.fromOpaque(userdata).takeUnretainedValue()
        return source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    }

    /// `CURLOPT_SEEKFUNCTION`: rewinds the ``UploadSource`` to send the body again.
    static let seek: kcurl_seek_callback = { userdata, offset, origin in
        guard let userdata else { return Int32(KCURL_SEEKFUNC_FAIL) }
        return Unmanaged<UploadSource>.fromOpaque(userdata).takeUnretainedValue().seek(to: offset, origin: origin)
    }

    /// `CURLOPT_XFERINFOFUNCTION`: byte counts, for the ``ProgressRelay``. Returns 0, "go on".
    static let progress: kcurl_xferinfo_callback = { userdata, downloadTotal, downloadNow, _, uploadNow in
        guard let userdata else { return 0 }
        let relay = Unmanaged<ProgressRelay>.fromOpaque(userdata).takeUnretainedValue()
        relay.update(sent: uploadNow, received: downloadNow, expectedToReceive: downloadTotal)
        return 0
    }

    /// `CURLOPT_HEADERFUNCTION`: one complete header line at a time, CRLF included, for the
    /// ``ResponseCollector``. Returning 0 aborts the transfer, which a malformed status line
    /// must do.
    static let header: kcurl_data_callback = { buffer, size, count, userdata in
        let length = size * count
        guard let userdata, let buffer else { return length }
        let collector = Unmanaged<ResponseCollector>.fromOpaque(userdata).takeUnretainedValue()
        let line = CurlHeaderLine(bytes: UnsafeRawBufferPointer(start: buffer, count: length))
        return collector.receive(line) ? length : 0
    }
}
