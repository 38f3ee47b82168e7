import Foundation
import TestSupport

@testable import Shared

/// Runs `body` against a registry of its own, so tests do not share keyed values.
func withFreshRegistry<Result>(
  _ body: (SharedRegistry) async throws -> Result
) async rethrows -> Result {
  let registry = SharedRegistry()
  return try await SharedRegistry.$current.withValue(registry) {
    try await body(registry)
  }
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
