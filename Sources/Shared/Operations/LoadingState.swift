/// A loading state as a single enumeration: idle, loading, loaded with data, or failed with an error.
///
/// ```swift
/// switch LoadingState(post) {
/// case .idle: EmptyView()
/// case .loading: ProgressView()
/// case .loaded(let post): PostView(post)
/// case .failed(let error): ErrorView(error.error)
/// }
/// ```
public enum LoadingState<Value: Sendable>: Sendable {
  /// Nothing has been loaded or attempted.
  case idle
  /// Loading is under way.
  case loading
  /// Loaded.
  case loaded(Value)
  /// Loading failed.
  case failed(HashableError)

  /// The state of `operation`: failed while it has an error and is not running, loading while it runs, loaded
  /// when it has a value, idle otherwise.
  ///
  /// - Parameter operation: An operation's state.
  public init(_ operation: OperationState<Value>) {
    switch operation.status {
    case .idle: self = operation.value.map { .loaded($0) } ?? .idle
    case .pending: self = .loading
    case .success: self = operation.value.map { .loaded($0) } ?? .idle
    case .error: self = operation.storedError.map { .failed($0) } ?? .idle
    }
  }

  /// Whether nothing has been loaded or attempted.
  public var isIdle: Bool {
    if case .idle = self { return true }
    return false
  }

  /// Whether loading is under way.
  public var isLoading: Bool {
    if case .loading = self { return true }
    return false
  }

  /// Whether the data is loaded.
  public var isLoaded: Bool {
    if case .loaded = self { return true }
    return false
  }

  /// Whether loading failed.
  public var hasError: Bool {
    if case .failed = self { return true }
    return false
  }

  /// The loaded data, or `nil`.
  public var data: Value? {
    if case .loaded(let value) = self { return value }
    return nil
  }

  /// The error, or `nil`.
  public var error: HashableError? {
    if case .failed(let error) = self { return error }
    return nil
  }
}

extension LoadingState: Equatable where Value: Equatable {}
extension LoadingState: Hashable where Value: Hashable {}
