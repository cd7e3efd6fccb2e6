#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A thin wrapper over `posix_spawnattr_t`, whose Swift type differs: an opaque pointer on
// Apple platforms, a struct on Linux.

/// How the child starts: in a process group of its own, so that a signal reaches what it
/// starts too.
struct SpawnAttributes {
    #if canImport(Darwin)
    var raw: posix_spawnattr_t? = nil
    #else
    var raw = posix_spawnattr_t()
    #endif

    init() throws {
        try ChildProcessError.check(posix_spawnattr_init(&raw), "posix_spawnattr_init")
    }

    mutating func startNewProcessGroup() throws {
        #if canImport(Darwin)
        // Darwin's own way to keep this process's descriptors out of the child.
        let flags = Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        let flags = Int16(POSIX_SPAWN_SETPGROUP)
        #endif
        try ChildProcessError.check(posix_spawnattr_setflags(&raw, flags), "posix_spawnattr_setflags")
        try ChildProcessError.check(posix_spawnattr_setpgroup(&raw, 0), "posix_spawnattr_setpgroup")
    }

    mutating func destroy() {
        posix_spawnattr_destroy(&raw)
    }
}
