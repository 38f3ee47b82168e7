import Synchronization

/// Collects values from any thread.
final class Collector<Element: Sendable>: Sendable {
  private let storage = Mutex<[Element]>([])

  func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  var elements: [Element] {
    storage.withLock { $0 }
  }
}

/// Suspends the calling task, without sleeping, until `condition` holds.
func waitUntil(_ condition: () -> Bool) async {
  while !condition() {
    await Task.yield()
  }
}

/// A reference whose lifetime a test can watch through a weak reference.
final class Marker: Sendable {}
