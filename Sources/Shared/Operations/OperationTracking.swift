public import Foundation

/// How the operations on a value went: the status, the error of the last failure, the attempt, and when it changed.
///
/// One small value that every operation state embeds (``OperationState``, ``MutationState``, ``PaginatedState``),
/// and that a domain type embeds to carry its own operations (see ``OperationTrackable``):
///
/// ```swift
/// struct AuthSession: OperationTrackable, Equatable {
///   var user: User?
///   var operation = OperationTracking()
///
///   mutating func applySuccess(_ user: User) { self.user = user }
/// }
/// ```
///
/// The library writes it as runs start, retry and end; read it to show progress:
///
/// ```swift
/// switch auth.operation.status {
/// case .pending: print("Signing in…")
/// case .error: print("Sign-in failed:", auth.operation.error!)
/// case .idle, .success: render(auth)
/// }
/// ```
///
/// Errors have no equality of their own, so the error is compared by identity (the same failure, or a copy of it;
/// see ``HashableError``): two trackings are equal when they show the same status, the same error, the same attempt
/// and the same time.
public struct OperationTracking: Sendable, Hashable {
  /// Where the operation stands.
  public var status: OperationStatus
  /// The current attempt of the running operation, from 1; 0 before the first run and after a reset.
  public var attempt: Int
  /// When an operation last changed this value, or `nil` if none ever did.
  public var updatedAt: Date?
  /// The error, with the identity it is compared by.
  @usableFromInline var storedError: HashableError?

  /// Idle, with no error, attempt 0, never updated.
  ///
  /// ```swift
  /// var operation = OperationTracking()
  /// ```
  public init() {
    status = .idle
    attempt = 0
    updatedAt = nil
    storedError = nil
  }

  /// The error of the last failure, kept until the next success or a reset; compared by identity.
  ///
  /// ```swift
  /// if let error = post.error { show(error) }
  /// ```
  public var error: (any Error)? {
    get { storedError?.error }
    set { storedError = newValue.map(HashableError.init) }
  }

  // MARK: Transitions (the library's writes)

  /// A run starts: pending, at its first attempt.
  @inlinable
  mutating func begin() {
    status = .pending
    attempt = 1
    updatedAt = Date()
  }

  /// The running operation begins attempt `attempt` (from 2 for the first retry).
  @inlinable
  mutating func retry(_ attempt: Int) {
    self.attempt = attempt
    updatedAt = Date()
  }

  /// The running operation showed an intermediate value; it stays pending.
  @inlinable
  mutating func noteChange() {
    updatedAt = Date()
  }

  /// The run succeeded: the error goes.
  @inlinable
  mutating func succeed() {
    status = .success
    storedError = nil
    updatedAt = Date()
  }

  /// The run failed with `error`, which stays until the next success or a reset.
  @inlinable
  mutating func fail(_ error: any Error) {
    status = .error
    storedError = HashableError(error)
    updatedAt = Date()
  }

  /// No run is left that could write: shows `status`, the one the last shown run (or a reset) left.
  @inlinable
  mutating func restore(_ status: OperationStatus) {
    self.status = status
    updatedAt = Date()
  }

  /// Back to idle: no error, attempt 0.
  @inlinable
  mutating func reset() {
    status = .idle
    storedError = nil
    attempt = 0
    updatedAt = Date()
  }
}
