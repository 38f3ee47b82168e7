/// What happens when an operation is started on a shared value while another one runs on it.
///
/// Policies coordinate the runs started on one shared value: a root value, or one member of it reached through a key
/// path (so runs on `$screen.posts` and on `$screen.drafts`, or on `$list[0]` and `$list[1]`, never coordinate
/// with each other).
///
/// Whatever the policy, the state follows the most recently started run that was not cancelled: an older run never
/// shows its result while a newer one is pending or after a newer one was shown. Every run gets its own callbacks.
public enum OperationPolicy: Sendable, Hashable {
  /// Every run runs and gets its own callbacks; the state follows the most recently started run, so an older run
  /// that settles last does not overwrite a newer one. The default, like mutations in most client libraries: no run
  /// is cancelled or skipped.
  ///
  /// What reaches the value: an older run that succeeds while a newer one is pending is held back and applied
  /// (``OperationTrackable/applySuccess(_:)``, in start order) just before the newer run's result; an older run
  /// that ends after a newer one was shown writes nothing (its callbacks still get its result). A type whose
  /// `applySuccess` accumulates should use ``serial`` instead, so that every success is applied.
  case parallel
  /// A run started while another runs joins it: the operation runs once, and both callers' callbacks get its one
  /// result. A joiner that cancels only leaves; the operation stops when every caller has cancelled. A joiner's own
  /// options (retries, timeout, clock, modifiers) and optimistic update are not used: the run that started applies
  /// its own.
  case dedupe
  /// A new run cancels the one before it: the latest wins. A superseded run never writes the state; its
  /// `onSettled` gets `CancellationError`.
  case cancelPrevious
  /// Runs wait for the ones started before them and run one at a time, in the order `run` was called. Each run's
  /// result is shown before the next one starts.
  case serial
  /// Rapid runs are coalesced: each run waits `interval` (on the run's clock), and only a run that no later run
  /// followed within that quiet time actually runs. The coalesced ones settle with `CancellationError` and never
  /// touch the state. A run that ends after a newer one does not overwrite it. Use it for search-as-you-type and
  /// other bursts of triggers.
  ///
  /// A run that started keeps running when a later burst begins, and both requests reach the backend: to stop the
  /// older one, use ``debounceCancellingPrevious(_:)``.
  case debounce(Duration)
  /// Search as you type: rapid runs are coalesced as ``debounce(_:)`` coalesces them, and the run that starts cancels
  /// the one still in flight, as ``cancelPrevious`` does. At most one run is in flight, and it is the latest.
  ///
  /// ```swift
  /// func search(_ text: String, api: API) {
  ///   @Shared(.inMemory("search")) var results = OperationState<[Post]>()
  ///   $results.run(policy: .debounceCancellingPrevious(.milliseconds(300))) {
  ///     try await api.search(text)
  ///   }
  /// }
  /// ```
  ///
  /// Each run waits `interval` on the run's clock. A run that a later one follows within that time never starts:
  /// it settles with `CancellationError` at once, without waiting out its interval or touching the state. The run
  /// in flight goes on while a later one waits: if it ends first, its result is shown (the newest results there
  /// are); otherwise the later run cancels it as it starts, in the same step, and the cancelled run settles with
  /// `CancellationError` without writing the state. So the backend sees one request per pause in typing, and an
  /// answer to an outdated request is never awaited.
  ///
  /// The state shows these runs as a query shows a refetch: a run that starts sets
  /// ``OperationTracking/isFetching`` and keeps the status the state had, so the previous results stay
  /// ``OperationStatus/success`` (or an error stays ``OperationStatus/error``) while the next ones load; only a
  /// state with nothing to show yet (``OperationStatus/idle``) turns ``OperationStatus/pending``. Typing writes
  /// nothing: the state changes when a run starts and when it ends, and a run that cancels the one before it goes
  /// from one to the other without a change in between.
  case debounceCancellingPrevious(Duration)
}
