#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A NULL-terminated array of C strings, as `argv` and `envp` are; deallocate it once.
struct CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            (pointers + index).initialize(to: strdup(string))
        }
        (pointers + strings.count).initialize(to: nil)
    }

    func deallocate() {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}
