/// What a ``SharedKeyHolder`` shows: the held key's value, or, while a key it moved to loads, the value of the key it
/// held before.
///
/// ```swift
/// func render(_ shown: ShownValue<Settings>) {
///   apply(shown.value)
///   if shown.isPrevious { showSpinner() }  // The new key's value is still loading.
/// }
/// ```
public struct ShownValue<Value: Sendable>: Sendable {
  /// The value to show: the held key's, or the previous key's while the held one loads (see ``isPrevious``).
  public var value: Value
  /// Whether ``value`` is the previous key's, shown while the held key loads.
  public var isPrevious: Bool
  /// Whether the held key is loading its store.
  public var isLoading: Bool
  /// The error of the held key's last load, if it failed.
  public var loadError: (any Error)?

  /// What shows.
  ///
  /// - Parameters:
  ///   - value: The value to show.
  ///   - isPrevious: Whether it is the previous key's value.
  ///   - isLoading: Whether the held key is loading.
  ///   - loadError: The error of the held key's last load.
  public init(_ value: Value, isPrevious: Bool = false, isLoading: Bool = false, loadError: (any Error)? = nil) {
    self.value = value
    self.isPrevious = isPrevious
    self.isLoading = isLoading
    self.loadError = loadError
  }
}
