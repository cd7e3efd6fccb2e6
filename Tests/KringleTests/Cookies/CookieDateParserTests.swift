import Foundation
import Kringle
import KringleTestSupport
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// RFC 6265 §5.1.1: the cookie-date algorithm.
@Suite("RFC 6265 §5.1.1 cookie-date")
struct CookieDateParserTests {
    @Test(
        "§5.1.1 valid dates",
        arguments: [
            ("Fri, 07 Aug 2019 08:04:19 GMT", TestSupport.utc(2019, 8, 7, 8, 4, 19)),  // RFC 1123
            ("Sun, 18-Apr-2027 21:06:29 GMT", TestSupport.utc(2027, 4, 18, 21, 6, 29)),  // Netscape
            ("Sunday, 06-Nov-94 08:49:37 GMT", TestSupport.utc(1994, 11, 6, 8, 49, 37)),  // RFC 850
            ("Sun Nov  6 08:49:37 1994", TestSupport.utc(1994, 11, 6, 8, 49, 37)),  // asctime
            ("Thu, 01 Jan 70 00:00:00 GMT", TestSupport.utc(1970, 1, 1)),  // 70 → 1970
            ("Tue, 31 Dec 99 23:59:59 GMT", TestSupport.utc(1999, 12, 31, 23, 59, 59)),  // 99 → 1999
            ("Sat, 01 Jan 00 00:00:00 GMT", TestSupport.utc(2000, 1, 1)),  // 00 → 2000
            ("Wed, 09 Jun 69 10:18:14 GMT", TestSupport.utc(2069, 6, 9, 10, 18, 14)),  // 69 → 2069
            ("09 Jun 0069 10:18:14", TestSupport.utc(2069, 6, 9, 10, 18, 14)),  // 4 digits, still < 70
            ("7 aug 2019 8:4:9", TestSupport.utc(2019, 8, 7, 8, 4, 9)),  // one-digit fields
            ("2019 AUGUST 07 08:04:19", TestSupport.utc(2019, 8, 7, 8, 4, 19)),  // year first, long month
            ("08:04:19 07 Aug 2019", TestSupport.utc(2019, 8, 7, 8, 4, 19)),  // time first
            ("Fri 07 Aug 2019 08:04:19 GMT, baz=qux", TestSupport.utc(2019, 8, 7, 8, 4, 19)),  // trailing junk
            ("07-Aug-2019 08:04:19:99 UTC+05", TestSupport.utc(2019, 8, 7, 8, 4, 19)),  // extra octets
            ("29 Feb 2020 00:00:00", TestSupport.utc(2020, 2, 29)),  // leap day
            ("01 Jan 1601 00:00:00", TestSupport.utc(1601, 1, 1)),  // earliest year
            ("31 Dec 9999 23:59:59", TestSupport.utc(9999, 12, 31, 23, 59, 59)),
        ])
    func validDates(string: String, expected: Date) {
        #expect(CookieDateParser.parse(string) == expected)
    }

    @Test(
        "§5.1.1 invalid dates",
        arguments: [
            "", "garbage", "Fri, 07 Aug 2019",  // no time
            "07 Aug 08:04:19",  // no year
            "Aug 2019 08:04:19",  // no day
            "07 Foo 2019 08:04:19",  // no month
            "31 Dec 1600 23:59:59",  // year < 1601
            "07 Aug 12345 08:04:19",  // five-digit year
            "07 Aug 1 08:04:19",  // one-digit year
            "32 Aug 2019 08:04:19", "0 Aug 2019 08:04:19",  // day out of range
            "07 Aug 2019 24:00:00", "07 Aug 2019 08:60:00", "07 Aug 2019 08:04:60",
            "31 Apr 2019 00:00:00", "29 Feb 2019 00:00:00", "29 Feb 1900 00:00:00",  // not a date
            "2019-08-07T08:04:19Z",  // ISO 8601 has no month name
            "07 Aug 2019 123:04:19",  // three-digit hour
        ])
    func invalidDates(string: String) {
        #expect(CookieDateParser.parse(string) == nil)
    }
}
