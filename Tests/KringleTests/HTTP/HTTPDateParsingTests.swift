import Foundation
import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// HTTP-dates as RFC 9110 §5.6.7 has recipients read them: IMF-fixdate and the two obsolete
/// forms, byte by byte.
@Suite("HTTP-date parsing")
struct HTTPDateParsingTests {
    static let expected = Date(timeIntervalSince1970: 784_111_777)  // 1994-11-06 08:49:37 UTC

    @Test(
        "the three forms of RFC 9110 §5.6.7",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func forms(_ text: String) {
        #expect(HTTPDate.parse(text) == Self.expected)
    }

    @Test("an rfc850-date's year more than 50 years ahead is the last century's")
    func twoDigitYears() throws {
        let date = try #require(HTTPDate.parse("Monday, 01-Jan-01 00:00:00 GMT"))
        #expect(date == Date(timeIntervalSince1970: 978_307_200))  // 2001-01-01
        let old = try #require(HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT"))
        #expect(old == Date(timeIntervalSince1970: 915_148_800))  // 1999-01-01
    }

    @Test(
        "anything else is no date",
        arguments: [
            "", "0", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sunday, 6-Nov-94 08:49:37 GMT",
            "Sun Nov 32 08:49:37 1994", "Sun Nov  6 24:00:00 1994", "Sun Nov  6 08:49 1994", "Sun Foo  6 08:49:37 1994",
            "Sunday, 06-Nov-94 08:49:37 GMT extra", "Vu6n( * Nov 1\u{18}94908:49:40 GMT", "Sun Nov  6 08:4a:37 1994",
        ])
    func invalid(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
