/// What a ``SharedKeyHolder`` shows: the held key's value, or, while a key it moved to loads, the value of the key it
/// held before.
///
/// ```swift
/// func render(_ shown: ShownValue<Settings>) {
///   apply(shown.value)
///   if shown.isPlaceholder { showSpinner() }  // The new key's value is still loading.
/// }
/// ```
public struct ShownValue<Value: Sendable>: Sendable {
  /// The value to show: the held key's, or the previous key's while the held one loads (see ``isPlaceholder``).
  public var value: Value
  /// Whether ``value`` stands in for the held key's: the previous key's, shown while the held key loads. The same
  /// name as a query's ``ShownState/isPlaceholder``.
  public var isPlaceholder: Bool
  /// Whether the held key is loading its store.
  public var isLoading: Bool
  /// The error of the held key's last load, if it failed.
  public var loadError: (any Error)?

  /// What shows.
  ///
  /// - Parameters:
  ///   - value: The value to show.
  ///   - isPlaceholder: Whether it is the previous key's value.
  ///   - isLoading: Whether the held key is loading.
  ///   - loadError: The error of the held key's last load.
  public init(_ value: Value, isPlaceholder: Bool = false, isLoading: Bool = false, loadError: (any Error)? = nil) {
    self.value = value
    self.isPlaceholder = isPlaceholder
    self.isLoading = isLoading
    self.loadError = loadError
  }

  /// Whether ``value`` is the previous key's.
  @available(*, deprecated, renamed: "isPlaceholder")
  public var isPrevious: Bool {
    get { isPlaceholder }
    set { isPlaceholder = newValue }
  }

  /// What shows.
  ///
  /// - Parameters:
  ///   - value: The value to show.
  ///   - isPrevious: Whether it is the previous key's value.
  ///   - isLoading: Whether the held key is loading.
  ///   - loadError: The error of the held key's last load.
  @available(*, deprecated, renamed: "init(_:isPlaceholder:isLoading:loadError:)")
  public init(_ value: Value, isPrevious: Bool, isLoading: Bool = false, loadError: (any Error)? = nil) {
    self.init(value, isPlaceholder: isPrevious, isLoading: isLoading, loadError: loadError)
  }
}
