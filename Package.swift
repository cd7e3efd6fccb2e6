// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Kringle",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    // Only the libraries: a package that depends on Kringle sees no demo, benchmark or test
    // module. `swift run kringle-demo` and `swift build --product kringle-benchmarks` still
    // work here, through the products SwiftPM gives a root package's executable targets.
    products: [
        .library(name: "Kringle", targets: ["Kringle"]),
        .library(name: "KringleURLSession", targets: ["KringleURLSession"]),
        .library(name: "KringlePromise", targets: ["KringlePromise"]),
        .library(name: "KringleTesting", targets: ["KringleTesting"]),
    ],
    targets: [
        // CThreadSanitizer: happens-before annotations that only ThreadSanitizer runs call
        // (-DKRINGLE_TSAN, Scripts/tsan.sh), around the promises' lock; see its header.
        .target(name: "KringlePromise", dependencies: ["CThreadSanitizer"]),
        .target(name: "CThreadSanitizer"),
        // The client, its pipeline and the libcurl transport. FoundationNetworking is not
        // imported here, so that a Linux process that never uses URLSession does not load it.
        .target(name: "KringleCore", dependencies: ["KringlePromise", "CCurlShim"]),
        // The URLSession adapter, which needs FoundationNetworking on Linux.
        .target(name: "KringleURLSession", dependencies: ["KringleCore", "CCurlShim"]),
        // What `import Kringle` gives: the core, and on Apple platforms the URLSession adapter
        // too, whose transport `NetworkClient()` uses there.
        .target(
            name: "Kringle",
            dependencies: [
                "KringleCore",
                .target(
                    name: "KringleURLSession",
                    condition: .when(platforms: [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS])),
            ]),
        .target(name: "KringleTesting", dependencies: ["Kringle", "KringleCore"]),
        // libcurl is loaded at run time with dlopen: no headers, no -lcurl at build time.
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Not a product: starts programs for the tests and benchmarks without Foundation's
        // `Process`, which can crash on Linux (see ChildProcess.swift).
        .target(name: "ChildProcess", path: "Tests/ChildProcess"),
        // Not a product: nginx for the benchmarks and the HTTP/2 tests.
        .target(
            name: "NginxTestServer", dependencies: ["Kringle", "KringleCore", "KringleTesting", "ChildProcess"],
            path: "Tests/NginxTestServer"),
        // Not a product: the helpers every test target shares (counters, boxes, waiting, the
        // programs some tests need).
        .target(
            name: "KringleTestSupport", dependencies: ["KringlePromise", "ChildProcess"],
            path: "Tests/KringleTestSupport"),
        .executableTarget(name: "kringle-demo", dependencies: ["Kringle", "KringleTesting"], path: "Demo"),
        // Not a product: one GET through the default client, the script the cold-start
        // benchmark times (`kringle-benchmarks cold-start`).
        .executableTarget(name: "kringle-get", dependencies: ["Kringle"], path: "Benchmarks/OneShot"),
        // Not a product: counts heap allocations inside the benchmark process.
        .target(name: "AllocationCounter", path: "Benchmarks/AllocationCounter"),
        // Not a product: libcurl driven directly, the floor the client is measured against.
        .target(
            name: "CurlFloor", path: "Benchmarks/CurlFloor",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .executableTarget(
            name: "kringle-benchmarks",
            dependencies: [
                "Kringle", "KringleCore", "KringleURLSession", "KringleTesting", "ChildProcess", "AllocationCounter",
                "CurlFloor", "NginxTestServer",
            ],
            path: "Benchmarks",
            exclude: ["AllocationCounter", "CurlFloor", "OneShot", "websocket_echo.py"]
        ),
        .testTarget(
            name: "KringlePromiseTests", dependencies: ["KringlePromise", "KringleTesting", "KringleTestSupport"]),
        .testTarget(
            name: "KringleTestingTests", dependencies: ["KringleTesting", "ChildProcess", "KringleTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "KringleTests",
            dependencies: [
                "Kringle", "KringleCore", "KringleURLSession", "KringleTesting", "ChildProcess", "KringleTestSupport",
                "NginxTestServer",
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
