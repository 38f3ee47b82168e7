/// What an operation state has to show, as one enumeration whose cases carry it: nothing yet, a load under way with
/// the value from before, the loaded value, or a failure with its error and the value from before.
///
/// Every operation state derives one (``OperationState/phase``, ``PaginatedState/phase``, ``MutationState/phase``),
/// so that an exhaustive `switch` has the loaded value in hand, never optional:
///
/// ```swift
/// func title(of post: OperationState<Post>) -> String {
///   switch post.phase {
///   case .idle: "Not loaded"
///   case .loading(nil): "Loading…"
///   case .loading(let previous?): "\(previous.title) (reloading…)"
///   case .loaded(let loaded): loaded.title
///   case .failed(let error, _): "Failed: \(error.localizedDescription)"
///   }
/// }
/// ```
///
/// The phase is computed from the state each time it is read and never stored: ``OperationStatus`` stays the one
/// vocabulary for where an operation stands (its case checks live there, `post.status.isPending`), and the phase
/// adds what each status has to show.
///
/// | The state's ``OperationTracking/status`` | The phase |
/// | --- | --- |
/// | ``OperationStatus/pending`` | ``loading(previous:)``, with the value or `nil` |
/// | ``OperationStatus/error`` | ``failed(_:previous:)``, with the error and the value or `nil` |
/// | ``OperationStatus/success`` or ``OperationStatus/idle``, with a value | ``loaded(_:)`` |
/// | ``OperationStatus/success`` or ``OperationStatus/idle``, with no value | ``idle`` |
///
/// ``OperationTracking/isFetching`` never changes the phase, nor does ``OperationTracking/isPaused``: a first load
/// that waits for the network is ``loading(previous:)``, a value whose refetch waits stays ``loaded(_:)``; read
/// `isPaused` to say that it waits. A query refetching in the background keeps its status,
/// so a value on screen stays ``loaded(_:)`` (and a failure stays ``failed(_:previous:)``) while the refetch runs:
/// show a small refresh indicator from `isFetching`, not a spinner. A run (`$post.run { … }`) is an action the user
/// asked for, not a refresh: it shows pending, so it is ``loading(previous:)`` with the value it may replace.
/// ``Shared/reset()`` sets the status to idle and keeps the value, so a state reset after a failure is ``loaded(_:)``
/// again, or ``idle`` with no value.
///
/// Two phases are equal when they are the same case with equal values and the same failure (a ``HashableError``,
/// compared by identity as ``OperationTracking`` compares it).
public enum OperationPhase<Value: Sendable>: Sendable {
  /// Nothing to show: no run is under way, none failed, and there is no value.
  ///
  /// ```swift
  /// if case .idle = post.phase { $post.run { try await api.post(1) } }
  /// ```
  case idle

  /// A run, or a query's first load, is under way; `previous` is the value from before it, if any.
  ///
  /// ```swift
  /// if case .loading(let previous) = post.phase {
  ///   print(previous.map { "\($0.title) (reloading…)" } ?? "Loading…")
  /// }
  /// ```
  ///
  /// A query's background refetch is not a load: a value it refetches stays ``loaded(_:)``.
  case loading(previous: Value?)

  /// The value to show, with no run pending and no failure.
  ///
  /// ```swift
  /// if case .loaded(let loaded) = post.phase { print(loaded.title) }
  /// ```
  ///
  /// For an ``OperationState``, the value of the last success (or the value it was made with); for a
  /// ``PaginatedState``, its pages; for a ``MutationState``, the result of its latest successful run.
  case loaded(Value)

  /// The last run failed with `error`; `previous` is the value from before it, if any.
  ///
  /// ```swift
  /// if case .failed(let error, let previous) = post.phase {
  ///   print("Failed: \(error)", previous.map { "still showing \($0.title)" } ?? "")
  /// }
  /// ```
  ///
  /// The error is the one the operation threw, wrapped with the identity it is compared by: it describes itself as
  /// that error, and its ``HashableError/error`` is the error itself, to match against your own types.
  case failed(HashableError, previous: Value?)

  /// The phase of a state that tracks its operations in `operation` and has `value` to show.
  ///
  /// ```swift
  /// let phase = OperationPhase(auth.operation, value: auth.user)
  /// ```
  ///
  /// The state types derive theirs with it; a domain type that carries its own operations (an
  /// ``OperationTrackable``) derives one the same way. A status of ``OperationStatus/error`` with no error (only a
  /// program's own write makes one) is no failure to show: ``loaded(_:)`` or ``idle``.
  ///
  /// - Parameters:
  ///   - operation: How the operations on the value went.
  ///   - value: What the state has to show, or `nil` if nothing.
  @inlinable
  public init(_ operation: OperationTracking, value: Value?) {
    switch (operation.status, operation.storedError) {
    case (.pending, _):
      self = .loading(previous: value)
    case (.error, let error?):
      self = .failed(error, previous: value)
    case (.error, nil), (.success, _), (.idle, _):
      self = value.map { .loaded($0) } ?? .idle
    }
  }

  /// The same phase with every value it carries transformed: the loaded value and the value from before.
  ///
  /// ```swift
  /// let posts = feed.phase.map { pages in pages.flatMap { $0 } }  // OperationPhase<[Post]>
  /// ```
  ///
  /// - Parameter transform: Turns a value into the new phase's value.
  /// - Returns: The same case, with its values transformed and its error kept.
  public func map<NewValue: Sendable, Failure: Error>(
    _ transform: (Value) throws(Failure) -> NewValue
  ) throws(Failure) -> OperationPhase<NewValue> {
    switch self {
    case .idle: .idle
    case .loading(let previous): .loading(previous: try previous.map(transform))
    case .loaded(let value): .loaded(try transform(value))
    case .failed(let error, let previous): .failed(error, previous: try previous.map(transform))
    }
  }
}

extension OperationPhase: Equatable where Value: Equatable {}
extension OperationPhase: Hashable where Value: Hashable {}
