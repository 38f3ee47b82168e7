/// A value that carries the state of its own operations next to its domain data.
///
/// ``OperationState`` is one; a domain type can be another, so that one shared value holds both what it is and
/// what is happening to it. It embeds an ``OperationTracking`` (the status, the error by identity, the attempt and
/// the time) and says how a success changes it:
///
/// ```swift
/// struct AuthSession: OperationTrackable, Equatable {
///   var user: User?
///   var operation = OperationTracking()
///
///   mutating func applySuccess(_ user: User) { self.user = user }
/// }
///
/// func signIn(api: API) {
///   @Shared(.inMemory("auth")) var auth = AuthSession()
///   $auth.run { try await api.signIn() }
///   if auth.operation.status.isPending { showSpinner() }
/// }
/// ```
///
/// Every ``Shared`` of such a value gets ``Shared/run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``,
/// ``Shared/perform(_:policy:optimistic:isolation:_:)-(_,_,_,_,()->Value.Success)`` and ``Shared/reset()``. The library reads and writes only
/// ``operation`` and calls ``applySuccess(_:)``; the type adds no status helpers of its own (the case checks live
/// on ``OperationStatus``).
public protocol OperationTrackable: Sendable {
  /// What a successful operation returns.
  associatedtype Success: Sendable

  /// How the value's operations went: status, error, attempt and time. The library writes it.
  var operation: OperationTracking { get set }

  /// Puts the result of a successful operation into the value.
  ///
  /// When runs overlap (``OperationPolicy/parallel``, ``OperationPolicy/debounce(_:)``), a success that ends while a
  /// newer run is pending is held back, and applied, in start order and in the same step, just before the newer
  /// run's result is shown (or shown itself if every newer run is cancelled). A success that ends after a newer run
  /// was shown is never applied, nor is one held back when ``Shared/reset()`` is called. A type whose
  /// `applySuccess` replaces (``OperationState``) loses nothing by this; a type whose `applySuccess` accumulates
  /// (appends, merges, counts) should run with ``OperationPolicy/serial``, which shows every run's result in turn.
  ///
  /// - Parameter success: What the operation returned.
  mutating func applySuccess(_ success: Success)

  /// Puts the value back in its initial state: what it holds before anything was fetched, with an idle status, no
  /// error and no failures.
  ///
  /// ``QueryStore/reset(_:)`` calls it on every query it reaches. The default implementation resets ``operation``
  /// only and keeps the domain data; a domain type kept in a query implements it to clear its data too, so that a
  /// reset query shows nothing fetched:
  ///
  /// ```swift
  /// struct Profile: OperationTrackable {
  ///   var user: User?
  ///   var operation = OperationTracking()
  ///
  ///   mutating func applySuccess(_ user: User) { self.user = user }
  ///   mutating func resetToInitialState() { self = Profile() }
  /// }
  /// ```
  ///
  /// ``OperationState`` (no value) and ``PaginatedState`` (no pages) implement it fully. It runs under the value's
  /// lock: keep it to plain assignments, calling no other code.
  mutating func resetToInitialState()
}

extension OperationTrackable {
  /// Puts ``operation`` back in its initial state (idle, no error, no failures, attempt 0, never updated); the rest
  /// of the value stays.
  ///
  /// ```swift
  /// session.resetToInitialState()  // session.operation == OperationTracking()
  /// ```
  public mutating func resetToInitialState() {
    operation = OperationTracking()
  }
}
