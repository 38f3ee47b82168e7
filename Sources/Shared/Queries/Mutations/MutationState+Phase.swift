extension MutationState {
  /// What the mutation has to show, as one enumeration whose cases carry its latest result, so that a `switch` over
  /// it has the result of a success in hand, never optional.
  ///
  /// ```swift
  /// func saveLabel(_ rename: MutationState<String, Post>) -> String {
  ///   switch rename.phase {
  ///   case .idle: "Save"
  ///   case .loading: "Saving…"
  ///   case .loaded(let post): "Saved as \(post.title)"
  ///   case .failed(let error, _): "Could not save: \(error)"
  ///   }
  /// }
  /// ```
  ///
  /// Derived from ``operation`` and ``value`` (the result of the latest successful run) at each read, never stored:
  /// it follows the run the state follows, as ``operation`` does, not ``history``. See ``OperationPhase`` for every
  /// case.
  @inlinable
  public var phase: OperationPhase<Result> {
    OperationPhase(operation, value: value)
  }
}
