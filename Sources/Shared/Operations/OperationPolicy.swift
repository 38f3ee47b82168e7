/// What happens when an operation is started on a shared value while another one runs on it.
///
/// Policies coordinate the runs started on one shared value: a root value, or one member of it reached through a key
/// path (so runs on `$screen.posts` and on `$screen.drafts` never coordinate with each other).
public enum OperationPolicy: Sendable, Hashable {
  /// Every run runs; the state shows the transitions of each, and the last one to settle decides the final state.
  /// The default, like mutations in most client libraries: nothing a user asked for is dropped.
  case parallel
  /// A run started while another runs joins it: the operation runs once, and both callers' callbacks get its one
  /// result. A joiner that cancels only leaves; the operation stops when every caller has cancelled. A joiner's own
  /// `retry`, `timeout`, `clock` and `optimistic` arguments are not used: the run that started applies its own.
  case dedupe
  /// A new run cancels the one before it: the latest wins. A superseded run never writes the state; its
  /// `onSettled` gets `CancellationError`.
  case cancelPrevious
  /// Runs wait for the ones started before them and run one at a time, in the order `run` was called.
  case serial
  /// Rapid runs are coalesced: each run waits `interval` (on the run's clock), and only a run that no later run
  /// followed within that quiet time actually runs. The coalesced ones settle with `CancellationError` and never
  /// touch the state. Use it for search-as-you-type and other bursts of triggers.
  case debounce(Duration)
}
