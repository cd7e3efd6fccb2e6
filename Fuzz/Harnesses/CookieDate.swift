import Foundation

@_spi(KringleInternals) @testable import KringleCore
@testable import KringleTesting

/// `CookieDateParser.parse` (RFC 6265 §5.1.1) on one `Expires` value.
///
/// Beyond not crashing: a date it finds is a whole second between 1601 and the end of 9999
/// (a year has at most four digits), and the date written as an IMF-fixdate, the format
/// servers send, parses back to the same instant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = inputText(data, size)
    guard let date = CookieDateParser.parse(text) else { return 0 }
    let seconds = date.timeIntervalSince1970
    require(seconds.rounded() == seconds, "a fractional second: \(seconds)")
    // 1601-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    require(seconds >= -11_644_473_600 && seconds <= 253_402_300_799, "out of range: \(seconds)")
    // A substring must read as its own copy does (the parser takes any StringProtocol).
    require(CookieDateParser.parse(Substring(text)) == date, "a Substring parsed differently")

    let written = HTTPDate.imfFixdate(secondsSince1970: Int(seconds))
    require(CookieDateParser.parse(written) == date, "\(text.debugDescription) → \(written) does not round-trip")
    return 0
}
