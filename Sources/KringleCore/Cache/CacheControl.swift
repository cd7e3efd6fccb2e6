/// The directives of a message's `Cache-Control` field lines (RFC 9111 §5.2), request or
/// response.
///
/// Names are case-insensitive; an argument is a token or a quoted-string (RFC 9110 §5.6.2,
/// §5.6.4). Where a directive appears twice, the first occurrence counts (§4.2.1).
struct CacheControl: Sendable, Equatable {
    /// The directives in order, names lower-cased, arguments unquoted.
    private(set) var directives: [(name: String, argument: String?)] = []

    /// The directives of every `Cache-Control` line of `headers`.
    init(_ headers: HTTPHeaders) {
        for line in headers.values(for: "Cache-Control") { parse(line) }
    }

    /// The directives of one field value.
    init(_ value: String) {
        parse(value)
    }

    /// Whether `name` (lower-case) is present, with or without an argument.
    func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// The argument of the first `name` directive; `nil` when the directive is absent or
    /// has none.
    func argument(_ name: String) -> String? {
        directives.first { $0.name == name }?.argument
    }

    /// The delta-seconds of the first `name` directive (§1.2.2), or `nil` when it is absent.
    ///
    /// A value too large to hold counts as 2^31 (§1.2.2); one that is no number at all (or
    /// is missing) counts as 0, which makes a response stale rather than fresh for longer
    /// than its server meant (§4.2.1: invalid freshness information is treated as stale).
    func seconds(_ name: String) -> Int? {
        guard let directive = directives.first(where: { $0.name == name }) else { return nil }
        return Self.deltaSeconds(directive.argument ?? "")
    }

    /// 2^31: what a delta-seconds too large to represent becomes (§1.2.2).
    static let largestDeltaSeconds = 2_147_483_648

    static func == (lhs: CacheControl, rhs: CacheControl) -> Bool {
        lhs.directives.elementsEqual(rhs.directives) { $0.name == $1.name && $0.argument == $1.argument }
    }

    /// `#( token [ "=" ( token / quoted-string ) ] )`, tolerant of stray whitespace and empty
    /// list elements (RFC 9110 §5.6.1).
    private mutating func parse(_ value: String) {
        var scalars = Substring(value).unicodeScalars[...]
        while !scalars.isEmpty {
            scalars = scalars.drop { $0 == " " || $0 == "\t" || $0 == "," }
            let name = scalars.prefix { $0 != "=" && $0 != "," && $0 != " " && $0 != "\t" }
            scalars = scalars.dropFirst(name.count).drop { $0 == " " || $0 == "\t" }
            var argument: String?
            if scalars.first == "=" {
                scalars = scalars.dropFirst().drop { $0 == " " || $0 == "\t" }
                if scalars.first == "\"" {
                    var text = String.UnicodeScalarView()
                    scalars = scalars.dropFirst()
                    while let scalar = scalars.first, scalar != "\"" {
                        scalars = scalars.dropFirst()
                        if scalar == "\\", let escaped = scalars.first {  // quoted-pair
                            text.append(escaped)
                            scalars = scalars.dropFirst()
                        } else {
                            text.append(scalar)
                        }
                    }
                    scalars = scalars.dropFirst()  // the closing quote
                    argument = String(text)
                } else {
                    let token = scalars.prefix { $0 != "," && $0 != " " && $0 != "\t" }
                    scalars = scalars.dropFirst(token.count)
                    argument = String(String.UnicodeScalarView(token))
                }
            }
            // Whatever follows up to the next comma is not part of the grammar: skipped.
            scalars = scalars.drop { $0 != "," }
            if !name.isEmpty {
                directives.append((String(String.UnicodeScalarView(name)).lowercased(), argument))
            }
        }
    }
}
