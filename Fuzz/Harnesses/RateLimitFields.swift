import Foundation

@testable import KringleCore

/// `ServerRateLimit`, which reads `Retry-After` and the `RateLimit`, `RateLimit-Policy`,
/// `RateLimit-Remaining` and `RateLimit-Reset` fields a server sends, and `StructuredList`
/// beneath it.
///
/// The input is a status on its first line, then header lines, `Name: value`, one per LF.
/// Beyond not crashing: a pause is never negative, a pace is a positive number of seconds,
/// every list member's parameter names are in lower case, and a field with no `=` and no
/// `;` outside quotes gives members without parameters.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lines = inputText(data, size).split(separator: "\n", omittingEmptySubsequences: false)
    let status = lines.first.flatMap { Int($0.prefix(3)) } ?? 429
    var headers = HTTPHeaders()
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = String(line[line.index(after: colon)...])
        headers.add(name: String(line[..<colon]), value: value)
        for member in StructuredList.members(of: value) {
            for name in member.parameters.keys {
                require(name == name.lowercased(), "the parameter name \(name.debugDescription) is not in lower case")
            }
            if !value.contains("="), !value.contains(";") {
                require(member.parameters.isEmpty, "parameters read from \(value.debugDescription)")
            }
        }
    }
    let limit = ServerRateLimit(status: status, headers: headers, now: Date(timeIntervalSince1970: 784_111_777))
    if let pause = limit.pause { require(pause >= 0, "a negative pause \(pause)") }
    if let interval = limit.interval { require(interval > 0 && interval.isFinite, "a pace of \(interval) s") }
    return 0
}
