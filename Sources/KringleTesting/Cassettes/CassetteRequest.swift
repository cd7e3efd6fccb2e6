import Foundation

/// A request as the matcher sees it: redacted as the recorder would have written it.
struct CassetteRequest {
    var method: String
    var url: URL
    var headers: [(name: String, value: String)]
    var body: Data
}
