// swift-tools-version: 6.2
import PackageDescription

// The PostgreSQL integration: a package of its own, so the framework keeps zero dependencies.
let package = Package(
  name: "SharedPostgres",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
  products: [
    .library(name: "SharedPostgres", targets: ["SharedPostgres"]),
    .executable(name: "PostgresBenchmarks", targets: ["PostgresBenchmarks"]),
  ],
  dependencies: [
    // The framework, by path; named so the name does not depend on the folder the repository is cloned into.
    .package(name: "SharedState", path: "../.."),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    // TLS to the server (postgres-nio's own TLS library) and the event loop types its errors are made of.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
  ],
  targets: [
    .target(
      name: "SharedPostgres",
      dependencies: [
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    .testTarget(
      name: "SharedPostgresTests",
      dependencies: [
        "SharedPostgres", "PostgresProbe",
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A separate process the two-process tests share values with and kill; not part of the product.
    .executableTarget(
      name: "PostgresProbe",
      dependencies: ["SharedPostgres", .product(name: "SharedState", package: "SharedState")],
      path: "Tests/PostgresProbe"),
    .executableTarget(
      name: "PostgresBenchmarks",
      dependencies: [
        "SharedPostgres",
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      path: "Benchmarks"),
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
