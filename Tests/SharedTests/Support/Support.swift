import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Gives every test its own ``SharedRegistry``, so tests do not share keyed values.
///
/// Put it on a suite (`@Suite(.freshRegistry)`) or a test. Test bodies stay plain methods: a closure that holds both
/// a property-wrapper default and `#expect` can be miscompiled by Swift 6.3.1 (the two may share one mangled name).
struct FreshRegistryTrait: SuiteTrait, TestTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // A suite's own scope runs no test body; each test and test case gets a registry of its own.
    guard testCase != nil || !test.isSuite else { return try await function() }
    let registry = SharedRegistry()
    try await SharedRegistry.$current.withValue(registry) {
      try await function()
    }
  }
}

extension Trait where Self == FreshRegistryTrait {
  /// A fresh ``SharedRegistry`` for each test.
  static var freshRegistry: Self { Self() }
}

/// Runs `make` against a registry of its own, as another program would, and returns what it made.
///
/// Keep `#expect` out of `make`; check what it returns instead.
func inOtherRegistry<Made>(_ make: () throws -> Made) rethrows -> Made {
  let registry = SharedRegistry()
  return try SharedRegistry.$current.withValue(registry, operation: make)
}

/// Runs `make` against `registry` (a relaunched program's, say) and returns what it made: holders join that
/// registry while the test body, and its expectations, stay outside every closure.
///
/// Keep `#expect` out of `make`; check what it returns instead.
func inRegistry<Made>(_ registry: SharedRegistry, _ make: () throws -> Made) rethrows -> Made {
  try SharedRegistry.$current.withValue(registry, operation: make)
}

/// A folder of its own under the temporary directory, removed by `delete()`.
struct TemporaryFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("shared-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> URL {
    url.appendingPathComponent(name)
  }

  func delete() {
    try? FileManager.default.removeItem(at: url)
  }
}

struct User: Codable, Sendable, Equatable {
  var name: String
  var age: Int
}

struct Settings: Codable, Sendable, Equatable {
  var volume = 5
  var theme = "light"
}

extension Shared {
  /// The root object behind this value, for lifetime checks.
  var rootObject: AnyObject { root }
}

struct TestFailure: Error, Equatable {
  var code = 1
}
