/// How the state shows a run while it runs, as its policy decides.
@usableFromInline
enum RunDisplay: Sendable {
  /// As an action the user asked for: pending while it runs (``OperationTracking/begin()``).
  case pending
  /// As a refresh of what is shown, the way a query shows a refetch: fetching, with the status kept, except that a
  /// state with nothing to show yet (idle) turns pending (``OperationTracking/beginFetch()``).
  case fetching
}
