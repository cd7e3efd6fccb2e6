/// Formats the `Date` response header.
///
/// RFC 9110 §6.6.1 says an origin server with a clock MUST send `Date`, and §5.6.7 fixes its
/// preferred format, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. The current time is a
/// parameter (rather than read here) so tests can format a fixed instant.
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate for a count of seconds since 1970-01-01T00:00:00Z.
    ///
    /// Pure arithmetic on the proleptic Gregorian calendar, so it neither allocates a
    /// formatter nor depends on the process's locale or time zone.
    static func imfFixdate(secondsSince1970 seconds: Int) -> String {
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

/// Remembers the last formatted `Date` value, since a busy connection sends many responses
/// within the same second.
struct DateHeaderCache {
    private var second = Int.min
    private var formatted = ""

    /// The IMF-fixdate for `secondsSince1970`, formatted at most once per distinct second.
    mutating func value(secondsSince1970: Int) -> String {
        if secondsSince1970 != second {
            second = secondsSince1970
            formatted = HTTPDate.imfFixdate(secondsSince1970: secondsSince1970)
        }
        return formatted
    }
}
