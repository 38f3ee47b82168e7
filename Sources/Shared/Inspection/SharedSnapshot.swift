public import Foundation

/// Every key of a registry at one moment: its live values, and every query and mutation of its store.
///
/// ```swift
/// let snapshot = SharedRegistry.current.inspector.snapshot()
/// let loading = snapshot.keys.filter { $0.operation?.isFetching == true }.map(\.id)
/// ```
///
/// The keys are sorted by ``InspectedKey/id``. Each key is read on its own, one after another: a change that lands
/// while the snapshot is taken shows in the keys read after it.
public struct SharedSnapshot: Sendable {
  /// When the snapshot was taken.
  public var takenAt: Date
  /// The keys, sorted by ``InspectedKey/id``.
  public var keys: [InspectedKey]

  /// A snapshot with the given keys.
  ///
  /// - Parameters:
  ///   - takenAt: When it was taken.
  ///   - keys: The keys.
  public init(takenAt: Date, keys: [InspectedKey]) {
    self.takenAt = takenAt
    self.keys = keys
  }

  /// The key whose ``InspectedKey/id`` is `id`.
  ///
  /// - Parameter id: The key's identity in the inspection.
  /// - Returns: The key, or `nil` if the snapshot has none with that identity.
  public subscript(id id: String) -> InspectedKey? {
    keys.first { $0.id == id }
  }
}
