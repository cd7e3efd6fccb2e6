import ChildProcess
import Foundation
import KringleTestSupport
import Testing

/// The helper the tests and benchmarks start programs with (instead of Foundation's `Process`).
@Suite(.generousTimeLimit, .onOwnThread) struct ChildProcessTests {
    @Test func capturesStandardOutputAndTheExitCode() throws {
        let child = try ChildProcess.run("/bin/sh", ["-c", "printf 'out'; exit 3"])
        #expect(child.text == "out")
        #expect(child.status == 3)
        #expect(!child.timedOut)
    }

    @Test func capturesStandardErrorWhenAsked() throws {
        let child = try ChildProcess.run(
            "/bin/sh", ["-c", "printf 'out'; printf 'err' >&2"], includingStandardError: true)
        #expect(child.text == "outerr")
        #expect(child.status == 0)
    }

    @Test func theChildReadsAnEmptyStandardInput() throws {
        let child = try ChildProcess.run("/bin/cat", [], killAfter: 10)
        #expect(!child.timedOut)
        #expect(child.text.isEmpty)
    }

    @Test func theChildHoldsNoOtherDescriptorOfThisProcess() throws {
        let held = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        defer { try? held.close() }
        // `ls` lists its own descriptors: 0, 1, 2 and the one it reads the directory with.
        let child = try ChildProcess.run("/bin/ls", ["/proc/self/fd"])
        let descriptors = child.text.split(separator: "\n").compactMap { Int32($0) }
        #expect(!descriptors.contains(held.fileDescriptor), "\(descriptors)")
        #expect(descriptors.count <= 4, "\(descriptors)")
    }

    @Test func killsTheWholeProcessGroupWhenItRunsTooLong() throws {
        // The shell's child `sleep` holds the output pipe too: unless it is killed as well,
        // reading would wait for it.
        let child = try ChildProcess.run("/bin/sh", ["-c", "sleep 30; echo done"], killAfter: 0.2)
        #expect(child.timedOut)
        #expect(child.status == 128 + SIGKILL)
        #expect(child.text.isEmpty)
    }

    @Test func aMissingProgramThrows() {
        #expect(throws: ChildProcessError.self) { try ChildProcess.run("/nonexistent/program", []) }
    }
}
