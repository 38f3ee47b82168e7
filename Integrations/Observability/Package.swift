// swift-tools-version: 6.2
import PackageDescription

// Metrics and traces of the query store, on swift-metrics and swift-distributed-tracing: a package of its own, so the
// framework itself keeps zero dependencies.
let package = Package(
  name: "SharedObservability",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
  products: [
    .library(name: "SharedObservability", targets: ["SharedObservability"]),
    .executable(name: "ObservabilityExample", targets: ["ObservabilityExample"]),
    .executable(name: "ObservabilityBenchmarks", targets: ["ObservabilityBenchmarks"]),
  ],
  dependencies: [
    // The framework, by path; named so the name does not depend on the folder the repository is cloned into.
    .package(name: "SharedState", path: "../.."),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
    // The example server's: Hummingbird, metrics exported by swift-prometheus, traces by swift-otel over OTLP/HTTP
    // (its gRPC exporter is left out: it would add gRPC to the build).
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
  ],
  targets: [
    .target(
      name: "SharedObservability",
      dependencies: [
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "Instrumentation", package: "swift-distributed-tracing"),
      ]),
    // A Hummingbird server with the query cache in a handler, its metrics at /metrics and its traces over OTLP.
    .executableTarget(
      name: "ObservabilityExample",
      dependencies: [
        "SharedObservability",
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "OTel", package: "swift-otel"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // What the telemetry costs a fetch and a cache hit, beside the same work unobserved.
    .executableTarget(
      name: "ObservabilityBenchmarks",
      dependencies: [
        "SharedObservability",
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
      ],
      path: "Benchmarks"),
    .testTarget(
      name: "SharedObservabilityTests",
      dependencies: [
        "SharedObservability",
        .product(name: "SharedState", package: "SharedState"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "MetricsTestKit", package: "swift-metrics"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Instrumentation", package: "swift-distributed-tracing"),
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
