import Foundation

@testable import KringleCore

/// `WebLink`, the `Link` header field parser (RFC 8288) that a walk through pages follows.
///
/// The input is field values, one per LF. Beyond not crashing: a target never holds the `>`
/// that ends it, relation types and parameter names are in lower case without whitespace,
/// fields parse the same together as one by one, and a target resolves (or not) without
/// trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fields = inputText(data, size).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let links = WebLink.links(in: fields)
    require(links == fields.flatMap { WebLink.links(in: [$0]) }, "fields parse differently together")
    let base = URL(string: "https://api.example/v1/items?page=1")!
    for link in links {
        require(!link.target.contains(">"), "the target \(link.target.debugDescription) holds a >")
        for relation in link.relations {
            require(!relation.isEmpty && relation == relation.lowercased(), "the relation \(relation.debugDescription)")
            require(!relation.contains(" ") && !relation.contains("\t"), "whitespace in \(relation.debugDescription)")
        }
        for name in link.parameters.keys {
            require(name == name.lowercased(), "the parameter name \(name.debugDescription) is not in lower case")
        }
        _ = link.url(relativeTo: base)
    }
    return 0
}
