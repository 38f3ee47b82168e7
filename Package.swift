// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "SharedState",
  // Observation's tracking and `Synchronization.Mutex` set these minimums; an app that depends on the package
  // raises its own to match.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
  products: [
    // What an app or a server adds: keys, @Shared, operations, queries and mutations.
    .library(name: "SharedState", targets: ["SharedState"]),
    // The primitives alone (a box, its values and observers), for code that needs no keys.
    .library(name: "Reactive", targets: ["Reactive"]),
    .executable(name: "Demo", targets: ["Demo"]),
  ],
  targets: [
    .target(name: "Reactive"),
    // The module is SharedState (no public type may share its module's name); its folder stays Sources/Shared.
    .target(
      name: "SharedState", dependencies: ["Reactive"], path: "Sources/Shared",
      exclude: ["Queries/Persistence/DESIGN.md"]),
    // The demo's scenarios, backends and models: a library the executable and the demo's tests share.
    .target(name: "DemoKit", dependencies: ["SharedState"], path: "Sources/Demo/DemoKit"),
    .executableTarget(name: "Demo", dependencies: ["DemoKit"], path: "Sources/Demo", exclude: ["DemoKit"]),
    .executableTarget(
      name: "Benchmarks", dependencies: ["Reactive", "SharedState"], path: "Benchmarks", exclude: ["Results", "README.md"]),
    // Helpers shared by the test targets.
    .target(name: "TestSupport", dependencies: ["Reactive"], path: "Tests/TestSupport"),
    .testTarget(name: "ReactiveTests", dependencies: ["Reactive", "TestSupport"]),
    .testTarget(name: "SharedTests", dependencies: ["SharedState", "TestSupport"]),
    .testTarget(name: "DemoTests", dependencies: ["DemoKit", "SharedState", "TestSupport"]),
    // A separate process the file-fault tests write with and kill; not part of the product.
    .executableTarget(name: "FileFaultProbe", dependencies: ["SharedState"], path: "Tests/FileFaultProbe"),
    // A separate process the exit tests end in several ways before its save delay passed; not part of the product.
    .executableTarget(name: "ExitProbe", dependencies: ["SharedState"], path: "Tests/ExitProbe"),
    // A separate app process the mutation queue's tests kill and start again; not part of the product.
    .executableTarget(name: "MutationQueueProbe", dependencies: ["SharedState"], path: "Tests/MutationQueueProbe"),
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
