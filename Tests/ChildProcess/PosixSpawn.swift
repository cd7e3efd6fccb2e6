#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Thin wrappers over the `posix_spawn` structures, whose Swift types differ: an opaque
// pointer on Apple platforms, a struct on Linux.

/// What the child does with descriptors between fork and exec.
struct SpawnFileActions {
    #if canImport(Darwin)
    var raw: posix_spawn_file_actions_t? = nil
    #else
    var raw = posix_spawn_file_actions_t()
    #endif

    init() throws {
        try check(posix_spawn_file_actions_init(&raw), "posix_spawn_file_actions_init")
    }

    /// Gives the child an empty standard input, so that nothing it runs waits for a terminal.
    mutating func readNothing() throws {
        try check(
            posix_spawn_file_actions_addopen(&raw, STDIN_FILENO, "/dev/null", O_RDONLY, 0),
            "posix_spawn_file_actions_addopen")
    }

    mutating func duplicate(_ descriptor: Int32, to target: Int32) throws {
        try check(posix_spawn_file_actions_adddup2(&raw, descriptor, target), "posix_spawn_file_actions_adddup2")
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
        try check(unsafeBitCast(symbol, to: CloseFrom.self)(&raw, 3), "posix_spawn_file_actions_addclosefrom_np")
        #endif
    }

    mutating func destroy() {
        posix_spawn_file_actions_destroy(&raw)
    }
}

/// How the child starts: in a process group of its own, so that a signal reaches what it
/// starts too.
struct SpawnAttributes {
    #if canImport(Darwin)
    var raw: posix_spawnattr_t? = nil
    #else
    var raw = posix_spawnattr_t()
    #endif

    init() throws {
        try check(posix_spawnattr_init(&raw), "posix_spawnattr_init")
    }

    mutating func startNewProcessGroup() throws {
        #if canImport(Darwin)
        // Darwin's own way to keep this process's descriptors out of the child.
        let flags = Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        let flags = Int16(POSIX_SPAWN_SETPGROUP)
        #endif
        try check(posix_spawnattr_setflags(&raw, flags), "posix_spawnattr_setflags")
        try check(posix_spawnattr_setpgroup(&raw, 0), "posix_spawnattr_setpgroup")
    }

    mutating func destroy() {
        posix_spawnattr_destroy(&raw)
    }
}

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

private func check(_ result: Int32, _ call: String) throws {
    if result != 0 { throw ChildProcessError(call, code: result) }
}
