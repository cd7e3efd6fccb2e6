import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of a response body kept in memory, appended as curl delivers them.
///
/// A body announced (by `Content-Length`, without a content coding) at ``mappingThreshold``
/// bytes or more goes into a memory mapping of its own, which on Linux is marked for
/// transparent huge pages (`MADV_HUGEPAGE`, which the kernel's usual `madvise` mode honours).
/// The kernel then faults the memory in and zeroes it 2 MiB at a time instead of 4 KiB: 50
/// page faults for 100 MiB instead of 25,600. Writing 100 MiB into fresh memory in 16 KiB
/// steps took 42 ms in small pages and 6–7 ms in huge pages on the machine this was measured
/// on; that fault cost was most of what a buffered 100 MB download cost beyond the transfer
/// itself. Smaller bodies grow a `Data`, which malloc serves from memory it usually has at
/// hand.
struct BodyBuffer {
    private var data = Data()
    private var mapping: BodyMapping?

    /// From this announced size on, the body gets a mapping of its own: the size at which
    /// glibc's malloc stops reusing freed memory and maps fresh pages anyway (its largest
    /// dynamic mmap threshold), so a mapping costs nothing that malloc would have spared.
    static let mappingThreshold = 32 << 20

    /// The bytes received so far.
    var count: Int {
        mapping?.count ?? data.count
    }

    /// Whether the body went into a mapping of its own.
    var isMapped: Bool {
        mapping != nil
    }

    /// Sets aside room for `capacity` bytes, the length the server announced. Reserving is
    /// only ever a hint: more bytes than that still fit. `isExact` says whether the body
    /// arrives as announced; a content-coded one decodes to more, so it grows a `Data`,
    /// which reallocates in place, rather than outgrowing a mapping and being copied.
    mutating func reserve(_ capacity: Int, isExact: Bool) {
        guard count == 0 else { return }
        if isExact, capacity >= Self.mappingThreshold, let mapping = BodyMapping(capacity: capacity) {
            self.mapping = mapping
        } else {
            data.reserveCapacity(capacity)
        }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if let mapping {
            if mapping.append(bytes) { return }
            // More than announced: on in a `Data` with what came so far.
            data = mapping.copy()
            self.mapping = nil
        }
        data.append(contentsOf: bytes)
    }

    /// The body, for good: the mapping itself, without a copy, when there is one. Taken once,
    /// the mapping belongs to the returned `Data` alone, which copies on its first change
    /// only when it is shared, as any `Data` does.
    mutating func takeContents() -> Data {
        if let mapping {
            data = mapping.data
            self.mapping = nil
        }
        return data
    }
}

/// Anonymous memory mapped for one body, unmapped when the `Data` it is handed to is gone.
///
/// Only the driving thread appends, before the body is handed over as one `Data`
/// (``BodyBuffer/takeContents()``), which owns the bytes from then on.
private final class BodyMapping {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var count = 0

    init?(capacity requested: Int) {
        // Whole huge pages, so that the last bytes are not left in small ones.
        let capacity = (requested + Self.hugePage - 1) / Self.hugePage * Self.hugePage
        guard let base = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            base != MAP_FAILED
        else { return nil }
        #if os(Linux)
        // A hint: where the kernel has no huge pages to give, the mapping works as it is.
        _ = madvise(base, capacity, MADV_HUGEPAGE)
        #endif
        self.base = base
        self.capacity = capacity
    }

    private static let hugePage = 2 << 20

    deinit {
        munmap(base, capacity)
    }

    /// Appends `bytes` if they fit; returns whether they did.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= capacity - count else { return false }
        if let source = bytes.baseAddress {
            (base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
        return true
    }

    /// The bytes so far, in place: the `Data` keeps the mapping alive.
    var data: Data {
        Data(bytesNoCopy: base, count: count, deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
    }

    func copy() -> Data {
        Data(bytes: base, count: count)
    }
}
