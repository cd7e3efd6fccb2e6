import Foundation

/// HTTP-dates (RFC 9110 §5.6.7): parsing IMF-fixdate, and the obsolete RFC 850 and asctime
/// forms recipients must accept; formatting IMF-fixdate, the preferred format, for the `Date`
/// header (RFC 9110 §6.6.1 says an origin server with a clock MUST send it), which
/// `LoopbackServer` sends. The current time is a parameter of the formatter (rather than read
/// there) so tests can format a fixed instant. Shared with KringleTesting
/// (`@_spi(KringleInternals)`).
@_spi(KringleInternals)
public enum HTTPDate {
    /// The date `text` names, or `nil` when it is no HTTP-date.
    ///
    /// Read byte by byte, every form: the cache reads `Date`, `Expires` and `Last-Modified`
    /// of every response it stores, a `DateFormatter` costs tens of microseconds to make, and
    /// FoundationNetworking's leaks memory on some malformed dates (the rate limit fuzzer found
    /// one), which a server could send on every response.
    static func parse(_ text: String) -> Date? {
        parseFixdate(text) ?? parseObsolete(text)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `day-name "," SP DD SP mon SP YYYY SP HH ":" MM ":" SS SP "GMT"`, exactly 29 bytes.
    private static func parseFixdate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
            bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "),
            bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "),
            bytes[26...].elementsEqual("GMT".utf8)
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let monthName = String(decoding: bytes[8..<11], as: UTF8.self)
        guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
            let minute = number(20..<22), let second = number(23..<25),
            let month = months.firstIndex(of: monthName).map({ $0 + 1 }),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = GregorianDays.sinceEpoch(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + min(second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The two obsolete forms RFC 9110 §5.6.7 has recipients accept: rfc850-date
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime-date (`Sun Nov  6 08:49:37 1994`). The
    /// day's name is not checked, as the formatter this replaces did not.
    private static func parseObsolete(_ text: String) -> Date? {
        let words = text.split(separator: " ")
        let day: Int?
        let month: Int?
        let year: Int?
        let time: Substring
        if words.count == 4, words[0].hasSuffix(","), words[3] == "GMT" {
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            day = number(parts[0], digits: 2...2)
            month = months.firstIndex(of: String(parts[1])).map { $0 + 1 }
            year = number(parts[2], digits: 2...2).map(fullYear)
            time = words[2]
        } else if words.count == 5 {
            month = months.firstIndex(of: String(words[1])).map { $0 + 1 }
            day = number(words[2], digits: 1...2)
            year = number(words[4], digits: 4...4)
            time = words[3]
        } else {
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let day, let month, let year, (1...31).contains(day), clock.count == 3,
            let hour = number(clock[0], digits: 2...2), let minute = number(clock[1], digits: 2...2),
            let second = number(clock[2], digits: 2...2), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = GregorianDays.sinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(((days * 24 + hour) * 60 + minute) * 60 + min(second, 59)))
    }

    /// `text` as a decimal number of so many ASCII digits; `nil` otherwise.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count) else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The year an rfc850-date's two digits stand for: this century's, unless that is more
    /// than 50 years ahead, when it is the last century's (RFC 9110 §5.6.7).
    private static func fullYear(_ twoDigits: Int) -> Int {
        let now = Int(Date().timeIntervalSince1970)
        let thisYear = civilDate(daysSince1970: (now >= 0 ? now : now - 86_399) / 86_400).year
        let candidate = thisYear - thisYear % 100 + twoDigits
        return candidate > thisYear + 50 ? candidate - 100 : candidate
    }

    // MARK: - Formatting

    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday

    /// The IMF-fixdate for a count of seconds since 1970-01-01T00:00:00Z.
    ///
    /// Pure arithmetic on the proleptic Gregorian calendar, so it neither allocates a
    /// formatter nor depends on the process's locale or time zone.
    public static func imfFixdate(secondsSince1970 seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        let weekday = weekdays[((days % 7) + 7) % 7]
        return "\(weekday), \(twoDigits(day)) \(months[month - 1]) \(year) "
            + "\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    /// Converts a day count to year, month (1...12) and day (1...31).
    ///
    /// Works in 400-year eras that start on 1 March, so the leap day falls at the end of each
    /// computed year and needs no special case (H. Hinnant, "chrono-compatible low-level date
    /// algorithms").
    private static func civilDate(daysSince1970: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = daysSince1970 + 719_468  // days from 0000-03-01 to 1970-01-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
