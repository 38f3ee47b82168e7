/// Where an asynchronous operation stands.
///
/// ```swift
/// switch post.status {
/// case .idle: Text("Not loaded")
/// case .pending: ProgressView()
/// case .success: PostView(post.value!)
/// case .error: ErrorView(post.error!)
/// }
/// ```
public enum OperationStatus: String, Sendable, Equatable, CaseIterable {
  /// No operation has run yet, or the state was reset.
  case idle
  /// An operation is running.
  case pending
  /// The last operation succeeded.
  case success
  /// The last operation failed.
  case error
}
