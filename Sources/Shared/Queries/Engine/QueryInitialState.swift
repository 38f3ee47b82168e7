import Foundation

/// The state a query's record starts with when the store makes it, and when that state was obtained.
///
/// A class, so that a query without one stays as small as before (one word for the optional reference).
final class QueryInitialState<State: OperationTrackable>: Sendable {
  /// The state, already marked as a success obtained at ``updatedAt``.
  let state: State
  /// When the state was obtained: staleness counts from here.
  let updatedAt: Date
  /// Whether the state was invalidated after it was obtained (a restored cache says so): it is stale whatever its
  /// age.
  let isInvalidated: Bool

  init(_ state: State, updatedAt: Date, isInvalidated: Bool = false) {
    var state = state
    state.operation.markSet(at: updatedAt)
    self.state = state
    self.updatedAt = updatedAt
    self.isInvalidated = isInvalidated
  }

  /// How long before `now` (on the wall clock) the state was obtained; never negative.
  func age(now: Date = Date()) -> Duration {
    .seconds(max(0, now.timeIntervalSince(updatedAt)))
  }
}
