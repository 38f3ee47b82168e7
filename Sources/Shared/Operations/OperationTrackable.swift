public import Foundation

/// A value that carries the state of its own operations: a status and an error, next to its domain data.
///
/// ``OperationState`` is one; a domain type can be another, so that one shared value holds both what it is and
/// what is happening to it:
///
/// ```swift
/// struct AuthSession: OperationTrackable {
///   var user: User?
///   var operationStatus = OperationStatus.idle
///   var error: (any Error)?
///
///   mutating func applySuccess(_ user: User) { self.user = user }
/// }
///
/// @Shared(.inMemory("auth")) var auth = AuthSession()
/// $auth.run { try await api.signIn() }
/// ```
///
/// Every ``Shared`` of such a value gets ``Shared/run(policy:retry:timeout:clock:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)``,
/// ``Shared/perform(policy:retry:timeout:clock:optimistic:isolation:_:)`` and ``Shared/reset()``.
public protocol OperationTrackable: Sendable {
  /// What a successful operation returns.
  associatedtype Success: Sendable

  /// Where the value's operation stands.
  var operationStatus: OperationStatus { get set }
  /// The error of the last failure, kept until the next success or a reset.
  var error: (any Error)? { get set }
  /// The current attempt of a running operation, from 1. The default keeps no attempt count.
  var operationAttempt: Int { get set }
  /// When an operation last changed the value. The default keeps no time.
  var operationUpdatedAt: Date? { get set }

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
}

extension OperationTrackable {
  /// No attempt count is kept.
  public var operationAttempt: Int {
    get { 0 }
    set {}
  }

  /// No time is kept.
  public var operationUpdatedAt: Date? {
    get { nil }
    set {}
  }

  /// Whether an operation is running.
  public var isLoading: Bool { operationStatus == .pending }
  /// Whether the last operation failed.
  public var isError: Bool { operationStatus == .error }
  /// Whether the last operation succeeded.
  public var isSuccess: Bool { operationStatus == .success }
  /// Whether no operation has run since the start or the last reset.
  public var isIdle: Bool { operationStatus == .idle }
}
