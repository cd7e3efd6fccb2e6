import Foundation
import Kringle

/// The demo's large download: a generated file streamed to disk with a progress bar.
enum DemoDownload {
    static let size = 32 << 20

    /// Draws a bar in place on a terminal, or prints a line per tenth elsewhere.
    static func progressPrinter() -> @Sendable (TransferProgress) -> Void {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let lastTenth = Locked(-1)
        return { progress in
            let fraction = progress.fractionCompleted ?? 0
            if isTerminal {
                let width = 30
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
                print(
                    String(format: "\rDOWNLOAD /big-file     → [%@] %3d %%", bar, Int(fraction * 100)), terminator: "")
                if fraction >= 1 { print("") }
                fflush(nil)
            } else {
                let tenth = Int(fraction * 10)
                guard tenth > lastTenth.value else { return }
                lastTenth.value = tenth
                print("DOWNLOAD /big-file     → \(tenth * 10) % (\(progress.completedBytes / 1_048_576) MB)")
            }
        }
    }
}
