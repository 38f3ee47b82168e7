import Synchronization

/// Whether a query fetch, or one attempt of a run or fetch, still accepts yielded values: open while it runs, closed
/// for good once it ended.
///
/// A query fetch closes its gate under the value's lock in the same step that writes its result, and the attempt
/// loop closes each attempt's gate as the attempt ends; a yield checks both under that lock before writing, so a
/// value yielded late (from a context that outlived its fetch or attempt) never lands after them.
@usableFromInline
final class YieldGate: Sendable {
  private let closed = Atomic<Bool>(false)

  init() {}

  /// Whether yielded values still show.
  var isOpen: Bool { !closed.load(ordering: .acquiring) }

  /// Stops showing yielded values.
  @usableFromInline
  func close() {
    closed.store(true, ordering: .releasing)
  }
}
