/// Checks that bytes are UTF-8 as they arrive, piece by piece, so that a text message can be
/// refused at the fragment that breaks it (RFC 6455 §8.1: "fail fast") rather than at its end.
///
/// It accepts exactly the well-formed sequences of the Unicode Standard's Table 3-7 (§3.9):
/// no overlong forms (`C0 80`, `E0 80 80`), no surrogates (`ED A0 80`, U+D800-DFFF), nothing
/// past U+10FFFF (`F4 90 80 80`, `F5`…`FF`), no continuation byte without a lead byte.
///
/// ```swift
/// var validator = UTF8Validator()
/// validator.consume([0xF0, 0x9F])  // true: a valid prefix
/// validator.isComplete             // false: the character is unfinished
/// validator.consume([0x98, 0x80])  // true
/// validator.isComplete             // true
/// ```
struct UTF8Validator: Sendable {
    /// Continuation bytes still to come for the character begun.
    private var pending = 0
    /// The range the next continuation byte must fall in; after the first continuation byte
    /// of a character it is always 80...BF.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    /// Whether every byte so far could begin or continue well-formed UTF-8.
    private(set) var isValid = true

    /// Whether everything consumed so far is valid UTF-8 that ends on a character boundary,
    /// with no character begun and unfinished.
    var isComplete: Bool { isValid && pending == 0 }

    /// Takes the next bytes in; `false` as soon as they cannot be part of UTF-8, and from then
    /// on.
    @discardableResult
    mutating func consume(_ bytes: some Sequence<UInt8>) -> Bool {
        guard isValid else { return false }
        if let result = bytes.withContiguousStorageIfAvailable({ consume(buffer: $0) }) { return result }
        for byte in bytes where !consume(byte) { return false }
        return true
    }

    private mutating func consume(buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = buffer.count
        while index < count {
            if pending == 0 {
                // Between characters, ASCII runs go 8 bytes at a time: no byte has its top bit.
                let raw = UnsafeRawBufferPointer(buffer)
                while count - index >= 8,
                    raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { break }
            }
            guard consume(buffer[index]) else { return false }
            index += 1
        }
        return true
    }

    /// One byte, by Table 3-7 of the Unicode Standard (§3.9, "Well-Formed UTF-8 Byte
    /// Sequences").
    private mutating func consume(_ byte: UInt8) -> Bool {
        if pending > 0 {
            guard lower <= byte && byte <= upper else { return fail() }
            pending -= 1
            lower = 0x80
            upper = 0xBF
            return true
        }
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: begin(continuations: 1)
        case 0xE0: begin(continuations: 2, firstFrom: 0xA0)  // no overlong three-byte forms
        case 0xED: begin(continuations: 2, firstThrough: 0x9F)  // no surrogates
        case 0xE1...0xEC, 0xEE...0xEF: begin(continuations: 2)
        case 0xF0: begin(continuations: 3, firstFrom: 0x90)  // no overlong four-byte forms
        case 0xF1...0xF3: begin(continuations: 3)
        case 0xF4: begin(continuations: 3, firstThrough: 0x8F)  // nothing past U+10FFFF
        // 80-BF without a lead byte, C0-C1 (overlong two-byte forms), F5-FF (past U+10FFFF).
        default: return fail()
        }
        return true
    }

    private mutating func begin(continuations: Int, firstFrom lower: UInt8 = 0x80, firstThrough upper: UInt8 = 0xBF) {
        pending = continuations
        self.lower = lower
        self.upper = upper
    }

    private mutating func fail() -> Bool {
        isValid = false
        return false
    }
}
