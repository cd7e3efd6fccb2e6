/// A small RFC 3492 punycode encoder, used to compare internationalized host names
/// in their ASCII ("xn--") form (RFC 6265 §5.1.2 canonicalized host names).
///
/// It does not apply IDNA mapping or normalization beyond lowercasing: Foundation's
/// `URL` already hands out ASCII hosts, so this only matters for hand-made input
/// and for the Public Suffix List's own Unicode rules and tests.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 128

    /// Converts every non-ASCII label of a dot-separated host name to `xn--` form.
    ///
    /// - Parameter host: A host name, possibly with Unicode labels.
    /// - Returns: The lowercased ASCII host, or `nil` when a label cannot be encoded.
    static func toASCII(host: some StringProtocol) -> String? {
        if host.utf8.allSatisfy({ $0 < 0x80 }) { return host.lowercased() }
        var labels: [String] = []
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard let ascii = toASCII(label: label) else { return nil }
            labels.append(ascii)
        }
        return labels.joined(separator: ".")
    }

    /// Converts one label: lowercased, and `xn--` + punycode when it is not ASCII.
    ///
    /// - Parameter label: One label of a host name.
    /// - Returns: The ASCII label, or `nil` on arithmetic overflow.
    static func toASCII(label: some StringProtocol) -> String? {
        let lowered = label.lowercased()
        if lowered.utf8.allSatisfy({ $0 < 0x80 }) { return lowered }
        return encode(lowered).map { "xn--" + $0 }
    }

    /// Encodes a string with the punycode algorithm of RFC 3492 §6.3 (no `xn--` prefix).
    ///
    /// - Parameter input: The Unicode text of one label.
    /// - Returns: The punycode text, or `nil` on arithmetic overflow.
    static func encode(_ input: String) -> String? {
        let codePoints = input.unicodeScalars.map { Int($0.value) }
        var output: [UInt8] = codePoints.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }

        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < codePoints.count {
            // The smallest code point not yet handled.
            guard let next = codePoints.filter({ $0 >= n }).min() else { return nil }
            let (step, stepOverflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !stepOverflow else { return nil }
            let (sum, sumOverflow) = delta.addingReportingOverflow(step)
            guard !sumOverflow else { return nil }
            delta = sum
            n = next
            for codePoint in codePoints {
                if codePoint < n {
                    delta += 1
                } else if codePoint == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta: delta, pointCount: handled + 1, isFirst: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3492 §6.1 bias adaptation.
    private static func adapt(delta: Int, pointCount: Int, isFirst: Bool) -> Int {
        var delta = isFirst ? delta / damp : delta / 2
        delta += delta / pointCount
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + ((base - tMin + 1) * delta) / (delta + skew)
    }

    /// RFC 3492 §5: 0-25 → a-z, 26-35 → 0-9.
    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }
}
