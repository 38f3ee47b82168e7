extension Shared {
  /// A read-only value computed from this one by `transform`, whose listeners hear only when the result changes.
  ///
  /// ```swift
  /// func watchTitle(of post: Shared<OperationState<Post>>) -> ObserverToken {
  ///   let title = post.select { $0.value?.title }
  ///   return title.observe { title in print("title:", title ?? "none") }  // not on status changes
  /// }
  /// ```
  ///
  /// Each holder shapes a shared value for itself: one screen selects a post's title, another its comment count,
  /// and neither is told about changes the other selected. ``SharedReader/observe(_:)`` and
  /// ``SharedReader/values`` skip every result equal to the one before, so a query's status going pending and
  /// back to success, or a refetch that brings the same value, reaches nobody who selected the value. A member
  /// reached through a key path (`$post.value`) does the same without a closure; `select` takes any computation.
  ///
  /// The selection has no storage: reading it runs `transform` on the current value. It does not count as a
  /// holder of its own, nor keep the value alive beyond this holder. Observation (`withObservationTracking`,
  /// SwiftUI) tracks the whole value it is read from, as for every derived value.
  ///
  /// - Parameter transform: Computes the selected part from the value; called on every read and on every change.
  /// - Returns: A reader of the selected part.
  public func select<Selected: Equatable & Sendable>(
    _ transform: @escaping @Sendable (Value) -> Selected
  ) -> SharedReader<Selected> {
    SharedReader<Selected>(source: DerivedSelection(parent: self, transform: transform, isEqual: { $0 == $1 }))
  }
}

extension SharedReader {
  /// A read-only value computed from this one by `transform`, whose listeners hear only when the result changes;
  /// see ``Shared/select(_:)``.
  ///
  /// ```swift
  /// func commentCount(of post: SharedReader<OperationState<Post>>) -> SharedReader<Int> {
  ///   post.select { $0.value?.comments.count ?? 0 }
  /// }
  /// ```
  ///
  /// - Parameter transform: Computes the selected part from the value; called on every read and on every change.
  /// - Returns: A reader of the selected part.
  public func select<Selected: Equatable & Sendable>(
    _ transform: @escaping @Sendable (Value) -> Selected
  ) -> SharedReader<Selected> {
    SharedReader<Selected>(source: DerivedSelection(parent: source, transform: transform, isEqual: { $0 == $1 }))
  }
}
