/// The error of an operation attempt that ran longer than its timeout.
public struct OperationTimeoutError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The time the attempt was allowed.
  public let timeout: Duration

  /// An error for an attempt that exceeded `timeout`.
  ///
  /// - Parameter timeout: The time the attempt was allowed.
  public init(timeout: Duration) {
    self.timeout = timeout
  }

  /// A sentence naming the timeout.
  public var description: String {
    "The operation did not finish within \(timeout)."
  }
}
