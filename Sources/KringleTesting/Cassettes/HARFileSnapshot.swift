import Foundation

/// A HAR file as its last writer left it: the archive, each entry's encoding, and the file's
/// size and modification time then.
struct HARFileSnapshot: Sendable {
    var archive: HAR.Archive
    var entryFragments: [Data]
    var stamp: Stamp?

    struct Stamp: Equatable {
        var size: Int
        var modified: Date
    }

    /// The size and modification time of the file at `url`, `nil` when there is none.
    static func stamp(of url: URL) -> Stamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = (attributes[.size] as? NSNumber)?.intValue, let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return Stamp(size: size, modified: modified)
    }
}
