// swift-tools-version: 6.2
import PackageDescription

// The web inspector: a package of its own on Hummingbird, so the framework itself keeps zero dependencies.
let package = Package(
  name: "SharedDevtools",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
  products: [
    .library(name: "SharedDevtools", targets: ["SharedDevtools"]),
    .executable(name: "DevtoolsExample", targets: ["DevtoolsExample"]),
  ],
  dependencies: [
    // The framework, by path; named so the name does not depend on the folder the repository is cloned into.
    .package(name: "SharedState", path: "../.."),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    // Hummingbird's own dependencies, named for the types the server uses directly: its service protocol, the
    // buffers a response body is made of, and the server's logger.
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    // The tests' client, which reads an event stream as it arrives (HummingbirdTesting depends on it too).
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
  ],
  targets: [
    .target(
      name: "SharedDevtools",
      dependencies: [
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]),
    // A program with queries, a mutation, an in-memory key and a file key, inspected live.
    .executableTarget(
      name: "DevtoolsExample",
      dependencies: [
        "SharedDevtools",
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "SharedDevtoolsTests",
      dependencies: [
        "SharedDevtools",
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]),
  ]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings += [
    .swiftLanguageMode(.v6),
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0335-existential-any.md
    .enableUpcomingFeature("ExistentialAny"),
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0444-member-import-visibility.md
    .enableUpcomingFeature("MemberImportVisibility"),
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0409-access-level-on-imports.md
    .enableUpcomingFeature("InternalImportsByDefault"),
  ]
  target.swiftSettings = settings
}
