#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A thin wrapper over `posix_spawn_file_actions_t`, whose Swift type differs: an opaque pointer
// on Apple platforms, a struct on Linux.

/// What the child does with descriptors between fork and exec.
struct SpawnFileActions {
    #if canImport(Darwin)
    var raw: posix_spawn_file_actions_t? = nil
    #else
    var raw = posix_spawn_file_actions_t()
    #endif

    init() throws {
        try ChildProcessError.check(posix_spawn_file_actions_init(&raw), "posix_spawn_file_actions_init")
    }

    /// Gives the child an empty standard input, so that nothing it runs waits for a terminal.
    mutating func readNothing() throws {
        try ChildProcessError.check(
            posix_spawn_file_actions_addopen(&raw, STDIN_FILENO, "/dev/null", O_RDONLY, 0),
            "posix_spawn_file_actions_addopen")
    }

    mutating func duplicate(_ descriptor: Int32, to target: Int32) throws {
        try ChildProcessError.check(
            posix_spawn_file_actions_adddup2(&raw, descriptor, target), "posix_spawn_file_actions_adddup2")
    }

    /// Closes every descriptor from 3 up in the child, so that it holds none of this process's
    /// sockets open. On Apple platforms ``SpawnAttributes`` does this instead.
    mutating func closeEveryOtherDescriptor() throws {
        #if os(Linux)
        // glibc 2.34 and later; the Glibc module does not declare it (it is a GNU extension).
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw ChildProcessError(
                "posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later) is missing", code: ENOSYS)
        }
        try ChildProcessError.check(
            unsafeBitCast(symbol, to: CloseFrom.self)(&raw, 3), "posix_spawn_file_actions_addclosefrom_np")
        #endif
    }

    mutating func destroy() {
        posix_spawn_file_actions_destroy(&raw)
    }
}
