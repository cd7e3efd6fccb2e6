import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's open descriptors, threads and resident memory, read from `/proc/self`
/// (Linux; elsewhere every figure reads 0).
struct ProcessStatus: Sendable {
    var descriptors = 0
    var threads = 0
    /// `VmRSS`, in kilobytes.
    var residentKB = 0
    /// `VmHWM`: the peak of `VmRSS` since the process started or ``resetPeak()``.
    var peakResidentKB = 0

    /// A reading now.
    static func now() -> ProcessStatus {
        var status = ProcessStatus(descriptors: openDescriptors())
        for line in contents(of: "/proc/self/status").split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let value = Int(fields[1]) else { continue }
            switch fields[0] {
            case "Threads:": status.threads = value
            case "VmRSS:": status.residentKB = value
            case "VmHWM:": status.peakResidentKB = value
            default: break
            }
        }
        return status
    }

    /// Starts `VmHWM` again from the current `VmRSS` (Linux 4.0 and later); whether it could.
    @discardableResult
    static func resetPeak() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// The highest of each figure in `self` and `other`.
    func peaks(with other: ProcessStatus) -> ProcessStatus {
        ProcessStatus(
            descriptors: max(descriptors, other.descriptors), threads: max(threads, other.threads),
            residentKB: max(residentKB, other.residentKB), peakResidentKB: max(peakResidentKB, other.peakResidentKB))
    }

    /// Entries of `/proc/self/fd`, without the one that lists them.
    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDots = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDots { count += 1 }
        }
        return count - 1
    }

    /// A `/proc` file's text (its size reads as 0, so it is read to the end).
    private static func contents(of path: String) -> String {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Reads ``ProcessStatus`` every few milliseconds on a thread of its own and keeps the peaks,
/// so that a phase reports the most descriptors, threads and memory it held at once.
final class ProcessSampler: Sendable {
    private let peaks = Locked(ProcessStatus.now())
    private let running = Atomic(true)
    private let finished = DispatchSemaphore(value: 0)

    init(every interval: TimeInterval = 0.02) {
        Thread { [self] in
            while running.load(ordering: .relaxed) {
                let status = ProcessStatus.now()
                peaks.update { $0 = $0.peaks(with: status) }
                Thread.sleep(forTimeInterval: interval)
            }
            finished.signal()
        }.start()
    }

    /// Stops sampling and returns the peaks, a last reading included.
    func stop() -> ProcessStatus {
        running.store(false, ordering: .relaxed)
        finished.wait()
        return peaks.get().peaks(with: .now())
    }
}
