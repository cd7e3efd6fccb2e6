import Foundation

/// The cookie-date algorithm of RFC 6265 §5.1.1, used for the `Expires` attribute.
///
/// It is deliberately lenient, as browsers are: it finds a time, a day of month, a
/// month and a year among the tokens of the string in any order, and ignores the
/// rest (`Wed, 09 Jun 2021 10:18:14 GMT`, `Sun, 18-Apr-2027 21:06:29 GMT`,
/// `Thu Jan  1 00:00:00 70`, …). Anything it cannot read gives `nil`, and the caller
/// then ignores the attribute (never the cookie).
///
/// Open to the library's own modules (KringleTesting's cassettes write the date a
/// `Set-Cookie` gives in ISO 8601), not part of the public API.
@_spi(KringleInternals)
public enum CookieDateParser {
    /// Parses a cookie-date.
    ///
    /// - Parameter string: The attribute value of `Expires`.
    /// - Returns: The date in UTC, or `nil` when the string is not a valid cookie-date.
    public static func parse(_ string: some StringProtocol) -> Date? {
        var fields = Fields()
        let bytes = Array(string.utf8)

        // RFC 6265 §5.1.1 step 1: split into date-tokens at delimiters.
        var start: Int?
        for index in 0...bytes.count {
            let isDelimiter = index == bytes.count || Self.isDelimiter(bytes[index])
            if isDelimiter {
                if let tokenStart = start {
                    fields.consume(bytes[tokenStart..<index])
                    start = nil
                }
            } else if start == nil {
                start = index
            }
        }
        return fields.date()
    }

    /// RFC 6265 §5.1.1 `delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: return true
        default: return false
        }
    }

    /// The four parts of a cookie-date, filled token by token (§5.1.1 step 2).
    private struct Fields {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?

        private static let months: [[UInt8]] = [
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ].map { Array($0.utf8) }

        mutating func consume(_ token: ArraySlice<UInt8>) {
            if time == nil, let value = Self.parseTime(token) {
                time = value
            } else if dayOfMonth == nil, let value = Self.parseDigits(token, min: 1, max: 2) {
                dayOfMonth = value
            } else if month == nil, let value = Self.parseMonth(token) {
                month = value
            } else if year == nil, let value = Self.parseDigits(token, min: 2, max: 4) {
                year = value
            }
        }

        /// Steps 3 to 7: two-digit years, range checks, and the calendar check.
        func date() -> Date? {
            guard let time, let dayOfMonth, let month, var year else { return nil }
            // Step 3: 70-99 → 1970-1999. Step 4: 0-69 → 2000-2069.
            if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
            // Step 5: abort on out-of-range fields.
            guard (1...31).contains(dayOfMonth), year >= 1601,
                time.hour <= 23, time.minute <= 59, time.second <= 59
            else { return nil }
            // Step 6: abort when the date does not exist (for example 31 April).
            guard dayOfMonth <= Self.daysIn(month: month, year: year) else { return nil }
            let days = GregorianDays.sinceEpoch(year: year, month: month, day: dayOfMonth)
            let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }

        /// `hms-time ( non-digit *OCTET )` with `time-field = 1*2DIGIT`.
        private static func parseTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
            var index = token.startIndex
            var parts: [Int] = []
            for part in 0..<3 {
                if part > 0 {
                    guard index < token.endIndex, token[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                }
                guard let (value, next) = leadingDigits(token, from: index, min: 1, max: 2) else { return nil }
                parts.append(value)
                index = next
            }
            guard index == token.endIndex || !isDigit(token[index]) else { return nil }
            return (parts[0], parts[1], parts[2])
        }

        /// `min*maxDIGIT ( non-digit *OCTET )`, used for day-of-month and year.
        private static func parseDigits(_ token: ArraySlice<UInt8>, min: Int, max: Int) -> Int? {
            guard let (value, next) = leadingDigits(token, from: token.startIndex, min: min, max: max)
            else { return nil }
            guard next == token.endIndex || !isDigit(token[next]) else { return nil }
            return value
        }

        /// `month = ( "jan" / … / "dec" ) *OCTET`, case-insensitive; returns 1 to 12.
        private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
            guard token.count >= 3 else { return nil }
            let prefix = token.prefix(3).map { $0 | 0x20 }  // ASCII lowercase (letters only matter)
            return months.firstIndex(of: prefix).map { $0 + 1 }
        }

        private static func leadingDigits(
            _ token: ArraySlice<UInt8>, from start: Int, min: Int, max: Int
        ) -> (Int, Int)? {
            var index = start
            var value = 0
            while index < token.endIndex, index - start < max, isDigit(token[index]) {
                value = value * 10 + Int(token[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard index - start >= min else { return nil }
            return (value, index)
        }

        private static func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        private static func isLeapYear(_ year: Int) -> Bool {
            (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        }

        private static func daysIn(month: Int, year: Int) -> Int {
            switch month {
            case 2: return isLeapYear(year) ? 29 : 28
            case 4, 6, 9, 11: return 30
            default: return 31
            }
        }
    }
}
