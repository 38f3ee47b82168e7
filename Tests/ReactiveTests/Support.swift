import Synchronization
import Testing

@testable import Reactive

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

/// A reference whose lifetime a test can watch through a weak reference.
final class Marker: Sendable {}
