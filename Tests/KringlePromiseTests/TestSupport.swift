import Foundation
import KringlePromise
import KringleTestSupport

/// Something to hold weakly, to prove that a promise released what it captured.
final class Canary: Sendable {}
