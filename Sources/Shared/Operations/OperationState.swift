/// The state of an asynchronous operation, shared by every holder: its last value and how its runs went.
///
/// ```swift
/// func loadPost(api: API) {
///   @Shared(.inMemory("post")) var post = OperationState<Post>()
///
///   $post.run { try await api.post(1) }
///   if post.status.isPending { showSpinner() }
///   if let error = post.error { show(error) }
/// }
/// ```
///
/// The value of the last success stays while a later run is pending or failed, so a screen can keep showing it.
/// The error stays until the next success or ``Shared/reset()``.
///
/// How the runs went is one embedded ``OperationTracking`` (``operation``); its members read and write through the
/// state itself, so `post.status`, `post.error`, `post.attempt` and `post.updatedAt` are `post.operation.status` and
/// so on, under one name each.
@dynamicMemberLookup
public struct OperationState<Value: Sendable>: OperationTrackable {
  /// The value of the last success, kept while a later run is pending or failed.
  public var value: Value?
  /// How the runs went: status, error (by identity), attempt and time.
  public var operation: OperationTracking

  /// An idle state with no value, or with `value` as if an earlier run had produced it.
  ///
  /// ```swift
  /// let cached = OperationState(value: Post(id: 1, title: "Cached"))  // status .success
  /// ```
  ///
  /// - Parameter value: A value to start with; its status is then ``OperationStatus/success``.
  @inlinable
  public init(value: Value? = nil) {
    self.value = value
    self.operation = OperationTracking()
    if value != nil { operation.status = .success }
  }

  /// A member of ``operation``, read and written through the state: `post.status`, `post.error`, `post.attempt`,
  /// `post.updatedAt`.
  ///
  /// ```swift
  /// if post.status == .error, let error = post.error { show(error) }
  /// ```
  ///
  /// - Parameter keyPath: The member of ``OperationTracking``.
  /// - Returns: Its value.
  @inlinable
  public subscript<Member>(dynamicMember keyPath: WritableKeyPath<OperationTracking, Member>) -> Member {
    get { operation[keyPath: keyPath] }
    set { operation[keyPath: keyPath] = newValue }
  }

  /// Stores the value of a success.
  ///
  /// ```swift
  /// state.applySuccess(post)  // state.value == post
  /// ```
  ///
  /// - Parameter success: The value the operation returned.
  public mutating func applySuccess(_ success: Value) {
    value = success
  }

  /// Puts the state back as ``init(value:)`` makes it with no value: no value, idle, no error, no failures.
  ///
  /// ```swift
  /// state.resetToInitialState()  // state.value == nil, state.status == .idle
  /// ```
  public mutating func resetToInitialState() {
    self = Self()
  }
}

extension OperationState: Equatable where Value: Equatable {}
extension OperationState: Hashable where Value: Hashable {}
