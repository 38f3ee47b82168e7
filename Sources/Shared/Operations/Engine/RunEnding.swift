/// How a run ends for the shared state, as its policy decides.
@usableFromInline
enum RunEnding: Sendable {
  /// The run ends with its outcome: a result to show, or cancelled.
  case withOutcome
  /// The run ends without a result, whatever its outcome (every caller of a dedupe execution left).
  case withoutResult
  /// The run already left the state when a newer run superseded it: only its optimistic update is rolled back.
  case alreadyLeft
}
