// swift-tools-version:6.0
import PackageDescription

// An HTTP media server over Avocet (Hummingbird 2): inspect uploads, thumbnails, background exports.
// Depends on Avocet by path; only its public products AVFoundation and CoreMedia are used.
let package = Package(
    name: "MediaServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "media-server", targets: ["media-server"]),
        .library(name: "MediaServerCore", targets: ["MediaServerCore"]),
    ],
    dependencies: [
        .package(name: "Avocet", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // Already needed by Hummingbird and PostgresNIO; named for the server's own imports.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
    ],
    targets: [
        // The server: configuration, routes, upload store, export jobs. Tests build it in-process.
        .target(
            name: "MediaServerCore",
            dependencies: [
                .product(name: "AVFoundation", package: "Avocet"),
                .product(name: "CoreMedia", package: "Avocet"),
                .product(name: "UniformTypeIdentifiers", package: "Avocet"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // NIO's async file system (the module NIOFileSystem), for writing uploads off the cooperative pool.
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Export jobs in PostgreSQL when a database is configured (PostgresJobQueue).
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // GET /metrics: swift-metrics' types over a Prometheus registry of the application's own.
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The executable: flags and environment into a ServerConfiguration, then runs the server.
        .executableTarget(
            name: "media-server",
            dependencies: [
                "MediaServerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "MediaServerTests",
            dependencies: [
                "MediaServerCore",
                .product(name: "AVFoundation", package: "Avocet"),
                .product(name: "CoreMedia", package: "Avocet"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
