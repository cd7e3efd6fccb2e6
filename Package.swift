// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Kringle",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Kringle", targets: ["Kringle"]),
        .library(name: "KringlePromise", targets: ["KringlePromise"]),
        .library(name: "KringleTesting", targets: ["KringleTesting"]),
        .library(name: "KringleCurl", targets: ["KringleCurl"]),
        .executable(name: "kringle-demo", targets: ["KringleDemo"]),
        .executable(name: "kringle-benchmarks", targets: ["KringleBenchmarks"]),
    ],
    targets: [
        .target(name: "KringlePromise"),
        .target(name: "Kringle", dependencies: ["KringlePromise"]),
        .target(name: "KringleTesting", dependencies: ["Kringle"]),
        // libcurl is loaded at run time with dlopen: no headers, no -lcurl at build time.
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "KringleCurl", dependencies: ["Kringle", "CCurlShim"]),
        // Not a product: starts programs for the tests and benchmarks without Foundation's
        // `Process`, which can crash on Linux (see ChildProcess.swift).
        .target(name: "ChildProcess"),
        // Not a product: the helpers every test target shares (counters, boxes, waiting).
        .target(name: "KringleTestSupport", dependencies: ["KringlePromise"], path: "Tests/KringleTestSupport"),
        .executableTarget(name: "KringleDemo", dependencies: ["Kringle", "KringleTesting"], path: "Demo"),
        .executableTarget(
            name: "KringleBenchmarks",
            dependencies: ["Kringle", "KringleTesting", "KringleCurl", "ChildProcess"],
            path: "Benchmarks"
        ),
        .testTarget(
            name: "KringlePromiseTests", dependencies: ["KringlePromise", "KringleTesting", "KringleTestSupport"]),
        .testTarget(
            name: "KringleTestingTests", dependencies: ["KringleTesting", "ChildProcess", "KringleTestSupport"]),
        .testTarget(
            name: "KringleCurlTests",
            dependencies: ["KringleCurl", "KringleTesting", "ChildProcess", "KringleTestSupport"]),
        .testTarget(
            name: "KringleTests",
            dependencies: ["Kringle", "KringleTesting", "KringleCurl", "ChildProcess", "KringleTestSupport"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
