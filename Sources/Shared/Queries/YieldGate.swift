import Synchronization

/// Whether a query fetch still accepts yielded values: open while the fetch runs, closed for good once its own result
/// (or failure, or cancellation) is written.
///
/// The fetch closes it under the value's lock in the same step that writes its result, and a yield checks it under
/// that lock before writing, so a value yielded late (from a context that outlived its fetch) never lands after the
/// result.
final class YieldGate: Sendable {
  private let closed = Atomic<Bool>(false)

  init() {}

  /// Whether yielded values still show.
  var isOpen: Bool { !closed.load(ordering: .acquiring) }

  /// Stops showing yielded values.
  func close() {
    closed.store(true, ordering: .releasing)
  }
}
