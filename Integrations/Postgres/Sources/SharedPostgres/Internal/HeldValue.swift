import Foundation

/// What the database needs of one held value, whatever its type.
protocol HeldValue: AnyObject, Sendable {
  /// Marks when another instance's change was heard: a change the program makes after it keeps memory
  /// (``receive(_:heard:)``). `nil` once every holder is gone.
  func changeHeard() -> (any Sendable)?
  /// Puts another instance's stored JSON, heard at `heard` (from ``changeHeard()``), in memory; says whether memory
  /// took it (or a value combined with it): not when the program changed the value since it was heard, and not
  /// when the JSON is not of the value's type (nor migrates to it).
  @discardableResult
  func receive(_ json: Data, heard: (any Sendable)?) async -> ReceiveOutcome
  /// Records a load error, or clears it with `nil`.
  func reportLoadError(_ error: (any Error)?)
  /// Saves memory again after a failed save: when the listener is up again, and from the retries of failed saves
  /// (with a growing delay) while the read/write connection may still be down.
  func saveAgain() async
  /// Whether the value is still in memory somewhere (a holder, or a save of the framework still to run).
  var isAlive: Bool { get }
  /// Writes memory when it differs from `agreed`, the JSON memory last held as the row did (nothing is written for
  /// a value the program never changed): for ``SharedPostgresDatabase/close(flushingWithin:)``. Throws what kept
  /// it from being written.
  func writeIfChanged(since agreed: Data?) async throws
  /// Whether memory differs from `agreed` (a change of the program not written yet).
  func differs(from agreed: Data?) -> Bool
  /// The program wrote `json` over the row itself (``PostgresKey/overwrite(with:)``): when memory holds it, the
  /// program's change is stored, and a failed save's error clears.
  func programWrote(_ json: Data)
}
