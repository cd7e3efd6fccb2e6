/// What every harness shares: the input as bytes or text, and a check that stops the run.
///
/// A harness is one file of `Fuzz/Harnesses`, compiled together with this folder by
/// `Scripts/fuzz.sh`; libFuzzer calls its `LLVMFuzzerTestOneInput` once per input.

/// Stops the fuzzer when an invariant does not hold. libFuzzer takes the trap as a crash and
/// saves the input, and the message says which rule the parser broke.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// The bytes libFuzzer hands a harness.
func inputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// The input as text, as a header value reaches the parsers that take a `String`: invalid
/// UTF-8 becomes U+FFFD, as it does in `String(decoding:as:)` everywhere else.
func inputText(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// Whether `byte` is optional whitespace (SP or HTAB, RFC 9110 §5.6.3).
func isOptionalWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
}

/// Whether `text` has no optional whitespace at either end.
func isTrimmed(_ text: String) -> Bool {
    guard let first = text.utf8.first, let last = text.utf8.last else { return true }
    return !isOptionalWhitespace(first) && !isOptionalWhitespace(last)
}
