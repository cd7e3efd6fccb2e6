import Testing

@testable import KringlePromise

#if canImport(Glibc)
import Glibc

/// glibc's count of the bytes an allocation may use (the size of its chunk, less a header).
@_silgen_name("malloc_usable_size")
private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int
#endif

/// A chain holds one promise per link (a recursive chain of a million links holds a million at
/// once), so the size of a promise is guarded: its state in four words, its outcome in one.
@Suite("The size of a promise")
struct PromiseSizeTests {
    @Test("the state takes four words, as an observer does")
    func stateTakesFourWords() {
        #expect(MemoryLayout<Observer>.size == 32)
        #expect(MemoryLayout<PromiseState>.size == 32)
    }

    #if canImport(Glibc)
    @Test("a promise takes 72 bytes, allocated as 80")
    func promiseTakes72Bytes() {
        let promise = Promise<Int>.pending()
        let usable = withExtendedLifetime(promise) { mallocUsableSize(Unmanaged.passUnretained(promise).toOpaque()) }
        #expect(usable == 72)
    }
    #endif
}
