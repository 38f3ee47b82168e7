/// Where an asynchronous operation stands.
///
/// Every operation state shows one (``OperationTracking/status``), and the case checks live here, so that they mean
/// the same thing on every type that carries one:
///
/// ```swift
/// switch post.status {
/// case .idle: print("Not loaded")
/// case .pending: print("Loading…")
/// case .success: print(post.value!.title)
/// case .error: print("Failed:", post.error!)
/// }
///
/// if post.status.isPending { showSpinner() }
/// ```
public enum OperationStatus: String, Sendable, Hashable, CaseIterable {
  /// No operation has run yet, or the state was reset.
  case idle
  /// An operation is running, or waits for the network (``OperationTracking/isPaused``); for a query, a first load
  /// with no value yet (a refetch keeps the status and shows ``OperationTracking/isFetching``).
  case pending
  /// The last operation succeeded.
  case success
  /// The last operation failed.
  case error

  // MARK: Case checking

  /// Whether no operation has run since the start or the last reset.
  ///
  /// ```swift
  /// if auth.operation.status.isIdle { showSignInButton() }
  /// ```
  public var isIdle: Bool { self == .idle }

  /// Whether an operation is running (for a query: whether it loads for the first time).
  ///
  /// ```swift
  /// if post.status.isPending { showSpinner() }
  /// ```
  public var isPending: Bool { self == .pending }

  /// Whether the last operation succeeded.
  ///
  /// ```swift
  /// if post.status.isSuccess, let loaded = post.value { show(loaded) }
  /// ```
  public var isSuccess: Bool { self == .success }

  /// Whether the last operation failed; its error is in ``OperationTracking/error``.
  ///
  /// ```swift
  /// if post.status.isError { showRetryButton() }
  /// ```
  public var isError: Bool { self == .error }
}
