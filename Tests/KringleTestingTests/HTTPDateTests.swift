import Kringle
@_spi(KringleInternals) import KringleCore
import KringleTestSupport
import Testing

@testable import KringleTesting

@Suite("RFC 9110 §5.6.7 IMF-fixdate")
struct HTTPDateTests {
    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),  // the example in RFC 9110 §5.6.7
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),  // leap day in a year divisible by 400
        (4_107_542_399, "Sun, 28 Feb 2100 23:59:59 GMT"),  // 2100 is not a leap year
        (4_107_542_400, "Mon, 01 Mar 2100 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func formats(seconds: Int, expected: String) {
        #expect(HTTPDate.imfFixdate(secondsSince1970: seconds) == expected)
    }

    @Test func cacheFormatsOncePerSecond() {
        var cache = DateHeaderCache()
        #expect(cache.value(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(cache.value(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(cache.value(secondsSince1970: 61) == "Thu, 01 Jan 1970 00:01:01 GMT")
    }
}
