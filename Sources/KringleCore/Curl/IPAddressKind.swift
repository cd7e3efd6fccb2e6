import Foundation

/// Whether a string is an IPv4 or IPv6 address in text form (RFC 4291 §2.2), by the system's
/// own parser.
enum IPAddressKind: Equatable {
    case v4
    case v6

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6
        } else {
            return nil
        }
    }
}
