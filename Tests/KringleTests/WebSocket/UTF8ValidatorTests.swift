import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// The incremental UTF-8 check on the well-formed and ill-formed sequences of the Unicode
/// Standard (§3.9, Table 3-7, and the examples of §3.9 and §5.22 "U+FFFD Substitution").
@Suite("UTF-8 validation (Unicode §3.9)")
struct UTF8ValidatorTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var bytes: [UInt8]
        /// How many bytes form a valid prefix; `bytes.count` when all do.
        var validPrefix: Int
        /// Whether the whole is valid and complete.
        var isComplete: Bool
        var note: String
        var testDescription: String { note + ": " + bytes.map { String($0, radix: 16) }.joined(separator: " ") }
    }

    static let rows: [Row] = [
        Row(bytes: [], validPrefix: 0, isComplete: true, note: "nothing"),
        Row(
            bytes: Array("plain ASCII, longer than eight bytes".utf8), validPrefix: 36, isComplete: true, note: "ASCII"),
        Row(bytes: [0x00, 0x7F], validPrefix: 2, isComplete: true, note: "ASCII's edges"),
        Row(bytes: [0xC2, 0x80, 0xDF, 0xBF], validPrefix: 4, isComplete: true, note: "U+0080, U+07FF"),
        Row(bytes: [0xE0, 0xA0, 0x80, 0xEF, 0xBF, 0xBF], validPrefix: 6, isComplete: true, note: "U+0800, U+FFFF"),
        Row(
            bytes: [0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80], validPrefix: 6, isComplete: true,
            note: "U+D7FF, U+E000 around the surrogates"),
        Row(
            bytes: [0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF], validPrefix: 8, isComplete: true,
            note: "U+10000, U+10FFFF"),
        Row(bytes: Array("κόσμε €𝄞 and ASCII after".utf8), validPrefix: 34, isComplete: true, note: "mixed"),
        Row(bytes: [0xC0, 0x80], validPrefix: 0, isComplete: false, note: "overlong NUL"),
        Row(bytes: [0xC1, 0xBF], validPrefix: 0, isComplete: false, note: "overlong two-byte"),
        Row(bytes: [0xE0, 0x80, 0xAF], validPrefix: 1, isComplete: false, note: "overlong three-byte /"),
        Row(bytes: [0xE0, 0x9F, 0xBF], validPrefix: 1, isComplete: false, note: "overlong U+07FF"),
        Row(bytes: [0xF0, 0x80, 0x80, 0xAF], validPrefix: 1, isComplete: false, note: "overlong four-byte"),
        Row(bytes: [0xF0, 0x8F, 0xBF, 0xBF], validPrefix: 1, isComplete: false, note: "overlong U+FFFF"),
        Row(bytes: [0xED, 0xA0, 0x80], validPrefix: 1, isComplete: false, note: "surrogate U+D800"),
        Row(bytes: [0xED, 0xBF, 0xBF], validPrefix: 1, isComplete: false, note: "surrogate U+DFFF"),
        Row(bytes: [0xF4, 0x90, 0x80, 0x80], validPrefix: 1, isComplete: false, note: "U+110000"),
        Row(bytes: [0xF5, 0x80, 0x80, 0x80], validPrefix: 0, isComplete: false, note: "F5 lead byte"),
        Row(bytes: [0xF8, 0x88, 0x80, 0x80, 0x80], validPrefix: 0, isComplete: false, note: "five-byte form"),
        Row(bytes: [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], validPrefix: 0, isComplete: false, note: "six-byte form"),
        Row(bytes: [0xFE], validPrefix: 0, isComplete: false, note: "FE"),
        Row(bytes: [0xFF], validPrefix: 0, isComplete: false, note: "FF"),
        Row(bytes: [0x61, 0x80], validPrefix: 1, isComplete: false, note: "a lone continuation byte"),
        Row(bytes: [0xBF], validPrefix: 0, isComplete: false, note: "a lone last continuation byte"),
        Row(bytes: [0xC2, 0x41], validPrefix: 1, isComplete: false, note: "a lead byte without its continuation"),
        Row(bytes: [0xE1, 0x80, 0x41], validPrefix: 2, isComplete: false, note: "a three-byte form cut short"),
        Row(bytes: [0xE1, 0x80], validPrefix: 2, isComplete: false, note: "ends inside a character"),
        Row(bytes: [0xF1, 0x80, 0x80], validPrefix: 3, isComplete: false, note: "ends one byte short"),
        Row(
            bytes: Array("12345678".utf8) + [0xC3, 0xA9, 0x80], validPrefix: 10, isComplete: false,
            note: "after an ASCII word"),
        // Table 3-8's example: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
        Row(
            bytes: [0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF, 0x64], validPrefix: 4,
            isComplete: false, note: "Table 3-8"),
    ]

    @Test("whole and byte by byte, the same verdict and the same failing byte", arguments: rows)
    func validate(_ row: Row) {
        var whole = UTF8Validator()
        let wholeVerdict = whole.consume(row.bytes)
        #expect(wholeVerdict == (row.validPrefix == row.bytes.count))
        #expect(whole.isComplete == row.isComplete)

        var bytewise = UTF8Validator()
        let accepted = row.bytes.prefix { bytewise.consume([$0]) }.count
        #expect(accepted == row.validPrefix)
        #expect(bytewise.isComplete == row.isComplete)
        // The verdict agrees with the standard library's.
        #expect(row.isComplete == (String(validating: row.bytes, as: UTF8.self) != nil))
    }

    @Test("once invalid it stays invalid, whatever follows")
    func staysInvalid() {
        var validator = UTF8Validator()
        let first = validator.consume([0xC0])
        let second = validator.consume(Array("fine".utf8))
        #expect(!first)
        #expect(!second)
        #expect(!validator.isComplete)
    }

    @Test("a non-contiguous sequence goes byte by byte and agrees")
    func nonContiguous() {
        var validator = UTF8Validator()
        let text = validator.consume("ab€".utf8.lazy.map { $0 })
        #expect(text && validator.isComplete)
        let surrogate = validator.consume([0xED, 0xA0].lazy.map { $0 })
        #expect(!surrogate)
    }

    @Test(
        "every three-byte and four-byte lead byte, with each first continuation byte, agrees with the standard library")
    func exhaustivePairs() {
        var disagreements: [[UInt8]] = []
        var accepted = 0
        for lead in UInt8(0xC0)...0xFF {
            for second in UInt8(0x00)...0xFF {
                // Completed by the smallest continuation bytes, when the pair can begin a character.
                let bytes = Array([lead, second, 0x80, 0x80].prefix(lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2))
                var validator = UTF8Validator()
                let verdict = validator.consume(bytes) && validator.isComplete
                if verdict { accepted += 1 }
                if verdict != (String(validating: bytes, as: UTF8.self) != nil) { disagreements.append(bytes) }
            }
        }
        #expect(disagreements == [])
        // C2-DF: 30 × 64; E0: 32, E1-EC, EE-EF: 14 × 64, ED: 32; F0: 48, F1-F3: 3 × 64, F4: 16.
        #expect(accepted == 30 * 64 + 32 + 14 * 64 + 32 + 48 + 3 * 64 + 16)
    }
}
