public import Foundation

/// How a value's operation stands, as an inspector shows it: the parts of ``OperationTracking`` a developer looks
/// at, with the error as text.
///
/// ```swift
/// let failed = SharedRegistry.current.inspector.snapshot().keys.filter { $0.operation?.status == .error }
/// ```
public struct InspectedOperation: Sendable, Hashable {
  /// The operation's status.
  public var status: OperationStatus
  /// Whether a fetch or run is under way.
  public var isFetching: Bool
  /// Whether the fetch or run waits for the network.
  public var isPaused: Bool
  /// The attempt under way, or the last one.
  public var attempt: Int
  /// How many attempts failed in a row.
  public var failureCount: Int
  /// The description of the error the value shows, if its last operation failed.
  public var error: String?
  /// When the value last changed through an operation (a fetch starting, retrying, ending).
  public var updatedAt: Date?
  /// When the value shown was obtained (``OperationTracking/dataUpdatedAt``).
  public var dataUpdatedAt: Date?
  /// When the last failure for good happened (``OperationTracking/errorUpdatedAt``).
  public var errorUpdatedAt: Date?

  /// The inspection of `tracking`. Describes its error: call outside every lock.
  ///
  /// - Parameter tracking: The operation's tracking.
  public init(_ tracking: OperationTracking) {
    status = tracking.status
    isFetching = tracking.isFetching
    isPaused = tracking.isPaused
    attempt = tracking.attempt
    failureCount = tracking.failureCount
    error = tracking.error.map { String(describing: $0) }
    updatedAt = tracking.updatedAt
    dataUpdatedAt = tracking.dataUpdatedAt
    errorUpdatedAt = tracking.errorUpdatedAt
  }
}
