/// A binary min-heap of deadlines.
struct DeadlineHeap: Sendable {
    private var entries: [(deadline: UInt64, id: UInt64)] = []

    init() {}

    init(_ entries: [(UInt64, UInt64)]) {
        for (deadline, id) in entries { push(deadline: deadline, id: id) }
    }

    var count: Int { entries.count }
    var min: (deadline: UInt64, id: UInt64)? { entries.first }

    mutating func push(deadline: UInt64, id: UInt64) {
        entries.append((deadline, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() {
        guard !entries.isEmpty else { return }
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
