import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Writes a response body to a file as curl delivers it.
///
/// The write is synchronous, from the write callback: curl reads no more from the socket
/// until the disk has taken the bytes, so a slow disk slows the transfer instead of filling
/// memory (TCP then tells the server to wait). Confined to the driving thread.
final class ResponseFileSink {
    private let handle: FileHandle
    /// The write error that stopped the transfer, if any.
    private(set) var failure: (any Error)?
    private var isClosed = false

    /// Opens an existing file for writing from its start, emptied. The file is not created:
    /// if the caller removed it (after a cancellation, say), nothing is written.
    convenience init(url: URL) throws(KringleError) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: url)
        } catch {
            throw .transport(error)
        }
        try self.init(handle: handle)
    }

    /// Writes through `handle` (``TransferRequest/responseBodyHandle``) from its start,
    /// emptied, without opening any path. The sink owns the handle and closes it.
    init(handle: FileHandle) throws(KringleError) {
        do {
            try handle.truncate(atOffset: 0)
        } catch {
            throw .transport(error)
        }
        self.handle = handle
    }

    deinit {
        close()
    }

    /// Writes all of `bytes`; `false` (with ``failure`` set) when the disk refuses them.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil, var address = bytes.baseAddress else { return failure == nil }
        var remaining = bytes.count
        while remaining > 0 {
            #if canImport(Glibc)
            let written = Glibc.write(handle.fileDescriptor, address, remaining)
            #else
            let written = Darwin.write(handle.fileDescriptor, address, remaining)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                return false
            }
            remaining -= written
            address += written
        }
        return true
    }

    /// Closes the file; done before the promise settles, so the caller finds it complete.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        try? handle.close()
    }
}
