extension KringleError {
    /// The underlying error of ``KringleError/file(_:underlying:)`` when a download's
    /// temporary file was renamed away or replaced (by a link, say) while the body was
    /// written to it: someone else can write to the destination's directory, so what is at
    /// the temporary path now is not moved into place.
    ///
    /// The body was written to the file the download created, never to what took its
    /// place; the destination and any partial file are unchanged.
    public struct TemporaryFileReplaced: Error, Sendable, Equatable, CustomStringConvertible {
        /// Creates the error.
        public init() {}

        /// A sentence saying what happened.
        public var description: String {
            "the download's temporary file was moved or replaced while the body was written to it"
        }
    }
}
