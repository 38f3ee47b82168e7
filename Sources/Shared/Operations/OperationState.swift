public import Foundation

/// The state of an asynchronous operation, shared by every holder: its status, its last value and its error.
///
/// ```swift
/// @Shared(.inMemory("post")) var post = OperationState<Post>()
///
/// $post.run { try await api.post(1) }
/// if post.isLoading { showSpinner() }
/// if let error = post.error { show(error) }
/// ```
///
/// The value of the last success stays while a later run is pending or failed, so a screen can keep showing it.
/// The error stays until the next success or ``Shared/reset()``.
public struct OperationState<Value: Sendable>: Sendable {
  /// Where the operation stands.
  public var status: OperationStatus
  /// The value of the last success, kept while a later run is pending or failed.
  public var value: Value?
  /// The error of the last failure, kept until the next success or a reset.
  public var error: (any Error)? {
    get { storedError?.error }
    set { storedError = newValue.map(HashableError.init) }
  }
  /// The current attempt of the running operation, from 1; 0 before the first run.
  public var attempt: Int
  /// When this state last changed through an operation, or `nil` if it never did.
  public var updatedAt: Date?

  var storedError: HashableError?

  /// An idle state with no value, or with `value` as if an earlier run had produced it.
  ///
  /// - Parameter value: A value to start with; its status is then ``OperationStatus/success``.
  public init(value: Value? = nil) {
    self.status = value == nil ? .idle : .success
    self.value = value
    self.attempt = 0
    self.updatedAt = nil
  }

  /// Whether an operation is running.
  public var isLoading: Bool { status == .pending }
  /// Whether the last operation failed.
  public var isError: Bool { status == .error }
  /// Whether the last operation succeeded.
  public var isSuccess: Bool { status == .success }
  /// Whether no operation has run since the start or the last reset.
  public var isIdle: Bool { status == .idle }
}

extension OperationState: Equatable where Value: Equatable {
  /// Equal when status, value, attempt and time are equal, and the errors are the same error (by identity).
  public static func == (lhs: OperationState, rhs: OperationState) -> Bool {
    lhs.status == rhs.status && lhs.value == rhs.value && lhs.storedError == rhs.storedError
      && lhs.attempt == rhs.attempt && lhs.updatedAt == rhs.updatedAt
  }
}

extension OperationState: OperationTrackable {
  /// The status, under the name ``OperationTrackable`` uses.
  public var operationStatus: OperationStatus {
    get { status }
    set { status = newValue }
  }

  /// The attempt, under the name ``OperationTrackable`` uses.
  public var operationAttempt: Int {
    get { attempt }
    set { attempt = newValue }
  }

  /// The time of the last update, under the name ``OperationTrackable`` uses.
  public var operationUpdatedAt: Date? {
    get { updatedAt }
    set { updatedAt = newValue }
  }

  /// Stores the value of a success.
  ///
  /// - Parameter success: The value the operation returned.
  public mutating func applySuccess(_ success: Value) {
    value = success
  }
}
