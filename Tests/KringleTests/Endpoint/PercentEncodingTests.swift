import Foundation
import Kringle
import Testing

@testable import KringleCore

/// The byte-set fast path agrees with Foundation's encoding for every ASCII character.
@Suite struct PercentEncodingTests {
    private static let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

    private static func foundation(_ string: String, keeping allowed: String) -> String? {
        string.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: allowed))
    }

    /// Every ASCII character but `%` (whose escapes `path` keeps), alone and between letters.
    static let samples: [String] = (0..<128).filter { $0 != 0x25 }.flatMap { code -> [String] in
        let character = String(UnicodeScalar(UInt8(code)))
        return [character, "a\(character)b"]
    }

    @Test(arguments: samples) func queryComponents(_ sample: String) {
        #expect(PercentEncoding.queryComponent(sample) == Self.foundation(sample, keeping: Self.unreserved))
    }

    @Test(arguments: samples) func paths(_ sample: String) {
        #expect(PercentEncoding.path(sample) == Self.foundation(sample, keeping: Self.unreserved + "!$&'()*+,=:@/"))
    }

    @Test(arguments: samples) func pathSegments(_ sample: String) {
        #expect(
            PercentEncoding.pathSegment(sample) == Self.foundation(sample, keeping: Self.unreserved + "!$&'()*+,=:@"))
    }

    @Test func nonASCIIIsEncoded() {
        #expect(PercentEncoding.queryComponent("Zürich") == "Z%C3%BCrich")
        #expect(PercentEncoding.path("/café/🐱") == "/caf%C3%A9/%F0%9F%90%B1")
        #expect(PercentEncoding.pathSegment("a/b") == "a%2Fb")
    }
}
