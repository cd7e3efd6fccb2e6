import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("A client bound to a test's cassette", .generousTimeLimit)
struct CassetteClientTests {
    @Test("records when the environment says so, replays afterwards, named after the test")
    func recordsThenReplays() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try LoopbackServer { _ in .json(#"{"name": "Tom", "mood": "purring"}"#) }
        let recording = try NetworkClient.cassette(
            folder: folder, environment: [NetworkClient.cassetteRecordingVariable: "1"])
        let live = try await recording.get(server.endpoint("/cat"), as: CassetteCat.self).value
        server.shutdown()
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("recordsThenReplays.har").path))

        let replaying = try NetworkClient.cassette(folder: folder, environment: [:])
        #expect(try await replaying.get(server.endpoint("/cat"), as: CassetteCat.self).value == live)
        #expect(server.statistics.requestsReceived == 1)
    }

    @Test("replaying a cassette not recorded yet says how to record it")
    func missingCassette() {
        let error = #expect(throws: CassetteError.self) {
            try NetworkClient.cassette("never-recorded", folder: temporaryCassetteFolder(), environment: [:])
        }
        #expect(String(describing: error).contains("KRINGLE_RECORD=1"))
        #expect(String(describing: error).contains("never-recorded.har"))
    }
}
