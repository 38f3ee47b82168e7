import Foundation
import Synchronization
import Testing

@testable import Shared

/// Collects values from any thread.
final class Collector<Element: Sendable>: Sendable {
  private let storage = Lock<[Element]>([])

  func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  var elements: [Element] {
    storage.withLock { $0 }
  }
}

/// Suspends the calling task, without sleeping, until `condition` holds; records a failure instead of hanging if it
/// never does.
func waitUntil(
  _ condition: () -> Bool,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  var yields = 0
  while !condition() {
    yields += 1
    if yields > 5_000_000 {
      Issue.record("the awaited condition never held", sourceLocation: sourceLocation)
      return
    }
    await Task.yield()
  }
}

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

/// A one-shot gate: tasks that wait are held until it opens (and pass at once afterwards).
final class Gate: Sendable {
  private let state = Lock<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func wait() async {
    await withCheckedContinuation { continuation in
      let passes = state.withLock { state -> Bool in
        if state.isOpen { return true }
        state.waiters.append(continuation)
        return false
      }
      if passes { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  var waiterCount: Int { state.withLock { $0.waiters.count } }
}

/// A counter shared by tasks.
final class Counter: Sendable {
  private let value = Lock(0)

  @discardableResult
  func increment() -> Int {
    value.withLock {
      $0 += 1
      return $0
    }
  }

  var count: Int { value.withLock { $0 } }
}

struct TestFailure: Error, Equatable {
  var code = 1
}
