import Foundation

/// What the database needs of one held value, whatever its type.
protocol HeldValue: AnyObject, Sendable {
  /// Marks when another instance's change was heard: a change the program makes after it keeps memory
  /// (``receive(_:heard:)``). `nil` once every holder is gone.
  func changeHeard() -> (any Sendable)?
  /// Puts another instance's stored JSON, heard at `heard` (from ``changeHeard()``), in memory; returns whether
  /// memory took it (or a value combined with it): `false` when the program changed the value since it was heard,
  /// or the JSON is not of the value's type.
  @discardableResult
  func receive(_ json: Data, heard: (any Sendable)?) async -> Bool
  /// Records a load error, or clears it with `nil`.
  func reportLoadError(_ error: (any Error)?)
  /// Saves memory again after a failed save: when the listener is up again, and from the retries of failed saves
  /// (with a growing delay) while the read/write connection may still be down.
  func saveAgain() async
}
