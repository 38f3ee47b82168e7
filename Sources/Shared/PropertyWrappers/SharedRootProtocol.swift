/// What a holder needs of its root without knowing the root's value type: the store's errors, loading and flushing.
@usableFromInline
protocol SharedRootProtocol: AnyObject, Sendable {
  var loadError: (any Error)? { get }
  var saveError: (any Error)? { get }
  func clearSaveError()
  var isLoading: Bool { get }
  func save() async throws
  func load() async throws
  /// Reads the value where Observation sees it, so a view that reads only `isLoading` or `loadError` is told
  /// when they change (the box is written when a load begins and ends).
  func trackValue()
  /// The object of type `T` kept with this value, made on first use.
  func attachment<T: AnyObject & Sendable>(_ type: T.Type, make: () -> T) -> T
}
