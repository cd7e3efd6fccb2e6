import CCurlShim
import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// The objects curl's streaming callbacks work for, without curl.
@Suite struct CurlStreamingPartsTests {
    @Test func uploadSourceReadsInChunksAndRewinds() {
        let source = UploadSource(StreamedBody(segments: [.data(Data("hello ".utf8)), .data(Data("world".utf8))]))
        var buffer = [UInt8](repeating: 0, count: 4)

        func readAll() -> String {
            var text = ""
            while true {
                let count = buffer.withUnsafeMutableBytes { source.read(into: $0) }
                if count == 0 { return text }
                text += String(decoding: buffer.prefix(count), as: UTF8.self)
            }
        }

        #expect(readAll() == "hello world")
        #expect(source.seek(to: 0, origin: SEEK_SET) == Int32(KCURL_SEEKFUNC_OK))
        #expect(readAll() == "hello world")
        #expect(source.seek(to: 3, origin: SEEK_SET) == Int32(KCURL_SEEKFUNC_CANTSEEK))
    }

    @Test func progressRelayPassesOnlyChanges() {
        let reports = Recorder<String>()
        let relay = ProgressRelay { report in
            reports.append("\(report.sent)/\(report.received)/\(report.expectedToReceive ?? -1)")
        }

        relay.update(sent: 0, received: 0, expectedToReceive: 0)
        relay.update(sent: 0, received: 0, expectedToReceive: 0)
        relay.update(sent: 0, received: 10, expectedToReceive: 100)
        relay.update(sent: 0, received: 10, expectedToReceive: 100)
        relay.update(sent: 5, received: 10, expectedToReceive: 100)

        #expect(reports.elements == ["0/0/-1", "0/10/100", "5/10/100"])
    }
}
