/// Which file a descriptor or path refers to: its device and inode numbers.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}
