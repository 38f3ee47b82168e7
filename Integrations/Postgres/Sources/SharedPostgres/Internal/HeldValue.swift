import Foundation
import SharedState

/// What the database needs of one held value, whatever its type.
protocol HeldValue: AnyObject, Sendable {
  /// Marks the start of a read of the store for ``receive(_:readAt:)``; `nil` once every holder is gone.
  func readStarted() -> SharedStoreRead?
  /// Puts another instance's stored JSON in memory; returns whether memory took it (or a value combined with it):
  /// `false` when the program changed or saved the value since `read` (it then holds, or will hold, a newer version
  /// than this one), or the JSON is not of the value's type.
  @discardableResult
  func receive(_ json: Data, readAt read: SharedStoreRead?) async -> Bool
  /// Records a load error, or clears it with `nil`.
  func reportLoadError(_ error: (any Error)?)
  /// Saves memory again after a failed save, now that the server is back.
  func saveAgain() async
}
