import Foundation
import Kringle

/// The demo's API, modelled as an enum the way Kringle users model theirs.
enum CatEndpoint: Endpoint {
    case cuddle
    case adopt
    case pet(catName: String)
    case feed(catName: String)
    case cat(name: String)
    case bigFile
    case meows

    static let server = ServerAddress()

    var baseURL: URL { Self.server.url }

    var path: String {
        switch self {
        case .cuddle: return "/cuddle"
        case .adopt: return "/cats"
        case .pet(let name): return "/cats/\(pathSegment: name)/pet"
        case .feed(let name): return "/cats/\(pathSegment: name)/food"
        case .cat(let name): return "/cats/\(pathSegment: name)"
        case .bigFile: return "/big-file"
        case .meows: return "/meows"
        }
    }
}

/// Where the demo's server listens (its port is only known once it runs).
final class ServerAddress: Sendable {
    private let stored = Locked(URL(fileURLWithPath: "/"))
    var url: URL {
        get { stored.value }
        set { stored.value = newValue }
    }
}

struct Cat: Codable, Sendable {
    var name: String
    var mood: String
}

struct Meal: Codable, Sendable {
    var food: String
    var grams: Int
}

struct APIError: Codable, Sendable {
    var error: String
}
