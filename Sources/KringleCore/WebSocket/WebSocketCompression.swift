import Foundation

/// `permessage-deflate` (RFC 7692) as the server agreed to it: each data message may travel
/// as raw deflate data, flagged by RSV1 on its first frame.
///
/// The client offers it without context takeover of its own (§7.1.1.2), so every message it
/// compresses starts afresh: nothing of one message's history is kept for the next, and the
/// compressor is only made once a message long enough to gain is sent. The server may keep
/// its context; the decompressor then keeps its window for the connection's life.
struct WebSocketCompression: Sendable, Equatable {
    /// Whether the server starts each message afresh (`server_no_context_takeover`).
    var serverNoContextTakeover = false

    /// The extension offer (§7.1): no client context takeover, any server window.
    static let offer = "permessage-deflate; client_no_context_takeover"

    /// Messages shorter than this go uncompressed: deflate's framing would outweigh what it
    /// saves (the RFC lets the sender choose per message, §6).
    static let smallestCompressed = 128

    /// Why a server's `Sec-WebSocket-Extensions` cannot be accepted.
    struct Refusal: Error {
        let reason: String
    }

    /// The agreement in a `Sec-WebSocket-Extensions` response (§7.1): `nil` for none.
    ///
    /// - Throws: ``Refusal`` for an answer that cannot be accepted (§7.1.1: an extension or
    ///   parameter that was not offered, a parameter twice, a window size out of range).
    static func agreed(inResponse fields: [String]) throws(Refusal) -> WebSocketCompression? {
        let extensions = fields.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !extensions.isEmpty else { return nil }
        guard extensions.count == 1 else {
            throw Refusal(reason: "the server agreed to more than one extension: \(extensions.joined(separator: ", "))")
        }
        let parts = extensions[0].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "permessage-deflate" else {
            throw Refusal(reason: "the server uses an extension that was not offered: \(extensions[0])")
        }
        var compression = WebSocketCompression()
        var seen: Set<String> = []
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            let value = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            guard seen.insert(name).inserted else {
                throw Refusal(reason: "permessage-deflate names \(name) twice")
            }
            switch (name, value) {
            case ("server_no_context_takeover", nil):
                compression.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil):
                break  // what the client does anyway
            case ("server_max_window_bits", let bits?) where Int(bits).map({ (8...15).contains($0) }) == true:
                break  // a smaller window than 15 bits inflates with the 15-bit one
            default:
                // client_max_window_bits was not offered, so the server may not send it
                // (§7.1.2.2); nothing else is defined.
                throw Refusal(reason: "permessage-deflate has a parameter that was not offered: \(parameter)")
            }
        }
        return compression
    }
}
