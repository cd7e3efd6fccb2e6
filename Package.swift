// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Kringle",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Kringle", targets: ["Kringle"]),
        .library(name: "KringlePromise", targets: ["KringlePromise"]),
        .library(name: "KringleTesting", targets: ["KringleTesting"]),
        .executable(name: "kringle-demo", targets: ["KringleDemo"]),
        .executable(name: "kringle-benchmarks", targets: ["KringleBenchmarks"]),
    ],
    targets: [
        .target(name: "KringlePromise"),
        .target(name: "Kringle", dependencies: ["KringlePromise"]),
        .target(name: "KringleTesting", dependencies: ["Kringle"]),
        .executableTarget(name: "KringleDemo", dependencies: ["Kringle", "KringleTesting"], path: "Demo"),
        .executableTarget(
            name: "KringleBenchmarks",
            dependencies: ["Kringle", "KringleTesting"],
            path: "Benchmarks"
        ),
        .testTarget(name: "KringlePromiseTests", dependencies: ["KringlePromise"]),
        .testTarget(name: "KringleTestingTests", dependencies: ["KringleTesting"]),
        .testTarget(
            name: "KringleTests",
            dependencies: ["Kringle", "KringleTesting"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
