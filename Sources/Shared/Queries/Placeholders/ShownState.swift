/// What one holder shows of a query: the query's state, and the value to show, which is a placeholder while the
/// query has no value of its own.
///
/// ```swift
/// func render(_ shown: ShownState<Post>) {
///   if let post = shown.value { show(post, dimmed: shown.isPlaceholder) }
///   if shown.status.isPending { showSpinner() }
/// }
/// ```
///
/// ``Shared/placeholder(_:)`` shows a value of your own until the query has one; a ``QueryHolder`` also shows the
/// value of the key it held before while the key it moved to loads. Either way ``isPlaceholder`` says so, and the
/// query's ``state`` (what every holder sees and what the store caches) never contains the placeholder.
@dynamicMemberLookup
public struct ShownState<Value: Sendable>: Sendable {
  /// The query's state, as every holder of its key sees it.
  public var state: OperationState<Value>
  /// The value to show: the query's own, or a placeholder while it has none (see ``isPlaceholder``).
  public var value: Value?
  /// Whether ``value`` is a placeholder (a value of yours, or the previous key's value) rather than the query's.
  public var isPlaceholder: Bool

  /// What a holder shows of `state`: its value, or `placeholder` while it has none.
  ///
  /// ```swift
  /// let shown = ShownState(OperationState<Post>(), placeholder: Post(id: 0, title: "Loading…"))
  /// // shown.isPlaceholder == true
  /// ```
  ///
  /// - Parameters:
  ///   - state: The query's state.
  ///   - placeholder: The value to show while `state` has no value.
  public init(_ state: OperationState<Value>, placeholder: Value?) {
    self.state = state
    if let value = state.value {
      self.value = value
      isPlaceholder = false
    } else {
      self.value = placeholder
      isPlaceholder = placeholder != nil
    }
  }

  /// A member of the query's ``OperationTracking``: `shown.status`, `shown.error`, `shown.attempt`.
  ///
  /// ```swift
  /// if shown.status == .error, let error = shown.error { print(error) }
  /// ```
  ///
  /// - Parameter keyPath: The member of ``OperationTracking``.
  /// - Returns: Its value in the query's state.
  public subscript<Member>(dynamicMember keyPath: KeyPath<OperationTracking, Member>) -> Member {
    state.operation[keyPath: keyPath]
  }
}

extension ShownState: Equatable where Value: Equatable {}
