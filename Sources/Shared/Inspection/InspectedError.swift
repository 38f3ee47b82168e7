/// The error a query shows after ``InspectorAction/forceError(message:)``.
///
/// ```swift
/// if let forced = todos.operation.error as? InspectedError { print(forced.message) }
/// ```
public struct InspectedError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The message given to the action.
  public let message: String

  /// An error with `message`.
  ///
  /// - Parameter message: What the error says.
  public init(message: String) {
    self.message = message
  }

  /// The message.
  public var description: String { message }
}
