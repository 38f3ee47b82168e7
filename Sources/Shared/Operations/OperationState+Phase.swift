extension OperationState {
  /// What the state has to show, as one enumeration whose cases carry it, so that a `switch` over it has the value
  /// of a success in hand, never optional.
  ///
  /// ```swift
  /// func render(_ post: OperationState<Post>) -> String {
  ///   switch post.phase {
  ///   case .idle: "Not loaded"
  ///   case .loading(let previous): previous.map { "\($0.title) (reloading…)" } ?? "Loading…"
  ///   case .loaded(let loaded): post.isFetching ? "\(loaded.title) (refreshing)" : loaded.title
  ///   case .failed(let error, let previous): "\(previous?.title ?? "No post"): failed with \(error)"
  ///   }
  /// }
  /// ```
  ///
  /// Derived from ``operation`` and ``value`` at each read, never stored. A query refetching in the background keeps
  /// its status, so its value stays ``OperationPhase/loaded(_:)`` while ``OperationTracking/isFetching`` is `true`.
  /// See ``OperationPhase`` for every case.
  @inlinable
  public var phase: OperationPhase<Value> {
    OperationPhase(operation, value: value)
  }
}
