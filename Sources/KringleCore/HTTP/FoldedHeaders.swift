/// Undoes FoundationNetworking's folding of repeated response headers where it matters.
package enum FoldedHeaders {
    /// Headers from `HTTPURLResponse.allHeaderFields`, sorted by name for a stable order,
    /// with a folded `Set-Cookie` split back into one field per cookie.
    package static func unfold(_ fields: [AnyHashable: Any]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        let pairs = fields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, value as? String ?? "\(value)")
        }
        for (name, value) in pairs.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            if HTTPHeaders.same(name, "Set-Cookie") {
                for cookie in splitSetCookie(value) { headers.add(name: name, value: cookie) }
            } else {
                headers.add(name: name, value: value)
            }
        }
        return headers
    }

    /// Splits a comma-joined `Set-Cookie` value into the cookies it holds.
    ///
    /// A comma separates two cookies only when what follows it, up to the next `;` or `,`,
    /// is a `name=value` pair with a token for a name. The comma inside
    /// `Expires=Wed, 21 Oct 2015 07:28:00 GMT` is followed by `21 Oct 2015 …`, which has no
    /// `=`, so dates stay whole. A single header `a=b, c=d` is indistinguishable from two
    /// headers and becomes two cookies.
    static func splitSetCookie(_ value: String) -> [String] {
        var cookies: [String] = []
        var current = Substring()
        var rest = Substring(value)
        while let comma = rest.firstIndex(of: ",") {
            let after = rest[rest.index(after: comma)...]
            current += rest[..<comma]
            if startsCookie(after) {
                cookies.append(current.trimmingSpaces)
                current = ""
            } else {
                current += ","
            }
            rest = after
        }
        current += rest
        let last = current.trimmingSpaces
        if !last.isEmpty || cookies.isEmpty { cookies.append(last) }
        return cookies
    }

    private static func startsCookie(_ text: Substring) -> Bool {
        let pair = text.prefix { $0 != ";" && $0 != "," }
        guard let equals = pair.firstIndex(of: "=") else { return false }
        let name = pair[..<equals].trimmingSpaces
        return !name.isEmpty && name.allSatisfy(isTokenCharacter)
    }

    /// RFC 9110 §5.6.2 tchar.
    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, ascii > 32, ascii < 127 else { return false }
        return !"()<>@,;:\\\"/[]?={}".contains(character)
    }
}

extension Substring {
    /// Without SP and HTAB at either end. By scalar, not by `Character`: a space followed by a
    /// combining mark is one `Character`, which is no space, yet the field starts with one.
    fileprivate var trimmingSpaces: String {
        let isSpace = { (scalar: Unicode.Scalar) in scalar == " " || scalar == "\t" }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
