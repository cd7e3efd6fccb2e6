import Foundation
import Kringle
import KringleTesting

// A Kringle tour against a local cat API: one promise chain using get, post, put, patch and
// delete with typed responses, and one error handled; a download with progress; a few
// Server-Sent Events as they arrive. No run loop tricks: `wait()` blocks until the chain is
// done, the event loop is plain `for try await`, and the process exits.

let server = try CatServer.start()
CatEndpoint.server.url = server.baseURL
let client = NetworkClient()
// The default engine: libcurl on Linux, URLSession on Apple platforms (see the README's Transports).
if client.transport is CurlTransport, let version = CurlTransport.libraryVersion {
    print("Transport: CurlTransport (\(version.prefix { $0 != " " }))")
} else {
    print("Transport: \(type(of: client.transport))")
}
// zlib, loaded at run time like libcurl, compresses request bodies (RequestCompression).
switch Zlib.load() {
case .success: print("Compression: zlib \(Zlib.version ?? "?") (\(Zlib.libraryName ?? "?"))")
case .failure(let failure): print("Compression: unavailable (\(failure))")
}

let tour = client.get(CatEndpoint.cuddle, as: Cat.self)
    .then { cat in
        print("GET    /cuddle          → \(cat.name) is \(cat.mood)")
        return client.post(Cat(name: "Felix", mood: "curious"), to: CatEndpoint.adopt, as: Cat.self)
    }
    .then { cat in
        print("POST   /cats            → adopted \(cat.name)")
        return client.put(Meal(food: "tuna", grams: 80), to: CatEndpoint.feed(catName: "Tom"), as: Cat.self)
    }
    .then { cat in
        print("PUT    /cats/Tom/food   → \(cat.name) is \(cat.mood)")
        return client.patch(["mood": "groomed"], to: CatEndpoint.cat(name: "Tom"), as: Cat.self)
    }
    .then { cat in
        print("PATCH  /cats/Tom        → \(cat.name) is \(cat.mood)")
        return client.delete(CatEndpoint.cat(name: "Felix"))
    }
    .then { _ in
        print("DELETE /cats/Felix      → Felix went home")
        return client.get(CatEndpoint.pet(catName: "Garfield"))
    }
    .recover { error in
        // The server's error payload travels inside the error, ready to decode.
        guard case KringleError.unacceptableStatusCode(let status, let response) = error else { throw error }
        let payload = try? JSONDecoder().decode(APIError.self, from: response.body)
        print("GET    /cats/Garfield/pet → \(status): \(payload?.error ?? "?")")
    }

let destination = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-demo-big-file")
let download =
    tour
    .then { _ in
        client.download(CatEndpoint.bigFile, to: destination, progress: DemoDownload.progressPrinter())
    }
    .done { response in
        let size = (try? FileManager.default.attributesOfItem(atPath: response.value.path)[.size] as? Int) ?? 0
        print("Saved \(size / 1_048_576) MB to \(response.value.path)")
        try? FileManager.default.removeItem(at: response.value)
    }

/// Server-Sent Events: each one printed as it arrives, then the loop is left, which closes
/// the connection (in a function: its iterator is released there, which top-level code does
/// not do until the program ends).
func printMeows(_ client: NetworkClient) async throws {
    for try await event in client.events(CatEndpoint.meows) {
        print("EVENTS /meows           → \(event.event) #\(event.id ?? "-"): \(event.data)")
        if event.id == "3" { break }
    }
}

do {
    _ = try download.wait(timeout: 60)
    try await printMeows(client)
    print("All done.")
    server.shutdown()
} catch {
    print("The tour failed: \(error)")
    server.shutdown()
    exit(1)
}
