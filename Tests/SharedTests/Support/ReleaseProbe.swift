import Synchronization
import TestSupport

@testable import SharedState

/// Calls `onRelease` from its `deinit`: a value that reads its own shared value when the library lets it go.
final class ReadsOnRelease: Sendable {
  let name: String
  private let onRelease: @Sendable () -> Void

  init(_ name: String, onRelease: @escaping @Sendable () -> Void) {
    self.name = name
    self.onRelease = onRelease
  }

  deinit { onRelease() }
}

/// Where a value that reads on release finds the shared value it reads, once that exists.
final class ReadTarget<State: Sendable>: Sendable {
  private let target = Lock<Shared<State>?>(nil)
  let reads = Counter()

  func set(_ shared: Shared<State>) {
    target.withLock { $0 = shared }
  }

  /// A value whose release reads the target (and would stop the program if that happened under its lock).
  func value(_ name: String) -> ReadsOnRelease {
    ReadsOnRelease(name) { [self] in
      if let shared = target.withLock({ $0 }) {
        _ = shared.wrappedValue
        reads.increment()
      }
    }
  }
}
