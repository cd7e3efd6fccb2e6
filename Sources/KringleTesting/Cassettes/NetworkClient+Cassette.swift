import Foundation

extension NetworkClient {
    /// The environment variable that makes ``cassette(_:folder:recordingWith:configuration:matching:environment:filePath:function:)``
    /// record: `missing` (or `1`) records the requests the cassette lacks, `all` records it
    /// afresh; unset, the cassette only replays.
    public static let cassetteRecordingVariable = "KRINGLE_RECORD"

    /// A client bound to the cassette named after the calling test, in a `Cassettes` folder
    /// beside the test's file: replaying by default, recording when
    /// ``cassetteRecordingVariable`` says so.
    ///
    /// ```swift
    /// @Test func fetchesCats() throws {
    ///     // Cassettes/fetchesCats.har; record it once with KRINGLE_RECORD=1 swift test
    ///     let client = try NetworkClient.cassette()
    ///     let cats = try client.get(CatAPI.cats, as: [Cat].self).wait()
    ///     #expect(cats.count == 2)
    /// }
    /// ```
    ///
    /// SwiftPM warns about files in a test target that are neither sources nor resources:
    /// add `exclude: ["Cassettes"]` (or the folders that hold them) to the test target.
    ///
    /// - Parameters:
    ///   - name: The cassette's name without `.har`; the calling function's name by default
    ///     (`fetchesCats()` gives `fetchesCats`).
    ///   - folder: Where the cassette is; `Cassettes` beside `filePath` by default.
    ///   - live: The transport a recording goes through; made only when recording.
    ///   - configuration: The client's configuration; its redaction rules are the
    ///     cassette's too.
    ///   - matching: How requests are matched to entries.
    ///   - environment: Where ``cassetteRecordingVariable`` is read; the process's by default.
    ///   - filePath: The calling test's file, whose folder holds `Cassettes`; leave the default.
    ///   - function: The calling test's name, the cassette's default name; leave the default.
    /// - Throws: ``CassetteError/unreadable(_:underlying:)`` when replaying a cassette that is
    ///   missing (the error says how to record it) or malformed.
    public static func cassette(
        _ name: String? = nil, folder: URL? = nil,
        recordingWith live: @autoclosure () -> any Transport = NetworkClient.makeDefaultTransport(),
        configuration: Configuration = Configuration(), matching: CassetteMatching = .default,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        filePath: String = #filePath, function: String = #function
    ) throws(CassetteError) -> NetworkClient {
        let folder =
            folder ?? URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Cassettes")
        let file = folder.appendingPathComponent((name ?? Self.cassetteName(function)) + ".har")
        let mode: ReplayTransport.Mode
        switch environment[cassetteRecordingVariable]?.lowercased() {
        case "all": mode = .reRecordAll(live())
        case "missing", "1", "true", "yes": mode = .recordWhenMissing(live())
        default:
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw .unreadable(file, underlying: MissingCassette(variable: cassetteRecordingVariable))
            }
            mode = .replayOnly
        }
        let transport = try ReplayTransport(
            cassette: file, mode: mode, matching: matching,
            redaction: CassetteRedaction(rules: configuration.redaction),
            clock: configuration.clock)
        return NetworkClient(configuration: configuration, transport: transport)
    }

    /// `fetchesCats()` → `fetchesCats`; a name with arguments keeps only what is before them.
    static func cassetteName(_ function: String) -> String {
        let base = function.prefix { $0 != "(" }
        return base.isEmpty ? "cassette" : String(base)
    }
}

/// The reason a cassette that is missing cannot replay, with the way to record it.
private struct MissingCassette: Error, CustomStringConvertible {
    var variable: String

    var description: String {
        "it does not exist yet: run the test once with \(variable)=1 to record it"
    }
}
