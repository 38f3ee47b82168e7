import Foundation

/// What the database needs of one held value, whatever its type.
protocol HeldValue: AnyObject, Sendable {
  /// Puts another instance's stored JSON in memory; returns whether memory took it (or a value combined with it):
  /// `false` when the program changed the value meanwhile, or the JSON is not of the value's type.
  @discardableResult
  func receive(_ json: Data) async -> Bool
  /// Records a load error, or clears it with `nil`.
  func reportLoadError(_ error: (any Error)?)
  /// Saves memory again after a failed save, now that the server is back.
  func saveAgain() async
}
