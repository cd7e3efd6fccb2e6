// Bytes of HTTP text: the ASCII case rule and the token characters (RFC 9110 §5.6.2).

extension UInt8 {
    /// The byte with an ASCII upper-case letter turned lower case; any other byte as it is.
    var asciiLowercased: UInt8 {
        (0x41...0x5A).contains(self) ? self | 0x20 : self
    }
}

extension UInt8 {
    /// Whether the byte is a `tchar`, a character of an HTTP token (RFC 9110 §5.6.2): what
    /// methods and field names are made of. Shared with `LoopbackServer`'s parser.
    @_spi(KringleInternals)
    public var isHTTPTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(self)
        }
    }
}
