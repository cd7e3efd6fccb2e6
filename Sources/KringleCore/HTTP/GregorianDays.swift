/// Calendar arithmetic for the date parsers (HTTP-dates, cookie dates), which work in UTC
/// and need no `Calendar`.
enum GregorianDays {
    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`).
    static func sinceEpoch(year: Int, month: Int, day: Int) -> Int {
        // Count years from March so the leap day falls at the end of the year.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
