import Foundation
import KringleTesting

/// A tiny cat API served by `LoopbackServer`, so the demo needs no network.
enum CatServer {
    static func start() throws -> LoopbackServer {
        let block = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var bigFile = Data(capacity: DemoDownload.size)
        for _ in 0..<DemoDownload.size / block.count { bigFile.append(block) }
        return try LoopbackServer { [bigFile] request in
            switch (request.method, request.path) {
            case ("GET", "/big-file"):
                return .data(bigFile)
            case ("GET", "/meows"):
                // Server-Sent Events, a little apart, as a live feed sends them.
                let events = ["Tom", "Felix", "Garfield"].enumerated().map { index, name in
                    "id: \(index + 1)\nevent: meow\ndata: \(name) says meow\n\n"
                }
                let steps = events.map { LoopbackServer.PacedStep(bytes: $0.utf8.count, then: .seconds(0.05)) }
                return .data(Data(events.joined().utf8), contentType: "text/event-stream")
                    .withBehavior(.paced(steps, afterLast: .sendRest))
            case ("GET", "/cuddle"):
                return .json(#"{"name": "Tom", "mood": "purring"}"#)
            case ("POST", "/cats"):
                return LoopbackServer.Response(
                    status: 201, headers: [("Content-Type", "application/json")], body: request.body)
            case ("PUT", let path) where path.hasSuffix("/food"):
                return .json(#"{"name": "Tom", "mood": "fed"}"#)
            case ("PATCH", let path) where path.hasPrefix("/cats/"):
                return .json(#"{"name": "Tom", "mood": "groomed"}"#)
            case ("DELETE", _):
                return .status(204)
            case ("GET", "/cats/Garfield/pet"):
                return .json(#"{"error": "Garfield does not like to be petted before lunch"}"#, status: 403)
            default:
                return .json(#"{"error": "no such thing"}"#, status: 404)
            }
        }
    }
}
