import Foundation

@testable import KringleCore

/// `FoldedHeaders`, which undoes FoundationNetworking's folding of repeated response headers
/// (URLSessionTransport): `splitSetCookie` on one comma-joined value, and `unfold` on the
/// header dictionary that `HTTPURLResponse.allHeaderFields` gives.
///
/// The input is header lines, `Name: value`, one per LF. Beyond not crashing: splitting only
/// cuts at commas and trims whitespace, so no other character is lost or added; a piece does
/// not split again; and `unfold` keeps every other field as it was.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = inputText(data, size)
    var fields: [AnyHashable: Any] = [:]
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        checkSplit(String(line))
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...])
        // A number stands in for the non-string values a dictionary of `Any` may hold.
        fields[name] = Int(value).map { $0 as Any } ?? value
    }

    let headers = FoldedHeaders.unfold(fields)
    for (key, value) in fields {
        guard let name = key as? String, !HTTPHeaders.same(name, "Set-Cookie") else { continue }
        let expected = value as? String ?? "\(value)"
        require(
            headers.fields.contains { $0.name == name && $0.value == expected },
            "the field \(name.debugDescription) was lost or changed")
    }
    // Every field gives one or more (a Set-Cookie splits into at least one piece).
    require(headers.fields.count >= fields.count, "unfold returned fewer fields than it was given")
    return 0
}

/// Splits `value` as a folded `Set-Cookie` and checks the pieces.
private func checkSplit(_ value: String) {
    let pieces = FoldedHeaders.splitSetCookie(value)
    require(!pieces.isEmpty, "no piece for \(value.debugDescription)")
    require(pieces.count <= value.utf8.count { $0 == UInt8(ascii: ",") } + 1, "more pieces than commas allow")
    let dropped: (UInt8) -> Bool = { isOptionalWhitespace($0) || $0 == UInt8(ascii: ",") }
    require(
        Array(pieces.joined(separator: ",").utf8.filter { !dropped($0) }) == Array(value.utf8.filter { !dropped($0) }),
        "splitting \(value.debugDescription) into \(pieces) lost or added text")
    for piece in pieces {
        require(isTrimmed(piece), "an untrimmed piece \(piece.debugDescription)")
        let again = FoldedHeaders.splitSetCookie(piece)
        require(again == [piece], "the piece \(piece.debugDescription) splits again into \(again)")
    }
}
