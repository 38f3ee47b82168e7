/// How a key's store stands, as an inspector shows it: loading, and the errors of the last load and save.
///
/// ```swift
/// let unsaved = SharedRegistry.current.inspector.snapshot().keys.filter { $0.store?.saveError != nil }
/// ```
public struct InspectedStore: Sendable, Hashable {
  /// Whether a load from the store runs.
  public var isLoading: Bool
  /// The description of the last load's error, until a load succeeds.
  public var loadError: String?
  /// The description of the last save's error, until a save succeeds.
  public var saveError: String?

  /// A store inspection with the given parts.
  ///
  /// - Parameters:
  ///   - isLoading: Whether a load runs.
  ///   - loadError: The last load's error.
  ///   - saveError: The last save's error.
  public init(isLoading: Bool, loadError: String?, saveError: String?) {
    self.isLoading = isLoading
    self.loadError = loadError
    self.saveError = saveError
  }
}
