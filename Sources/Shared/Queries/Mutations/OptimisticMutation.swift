/// What a mutation does to cached queries when it starts, and the context it hands its callbacks: TanStack Query's
/// `onMutate`.
///
/// ```swift
/// func publish(_ draft: Post, api: API) {
///   @Shared(.mutation("publish")) var publish = MutationState<Post, Post>()
///   let insert = OptimisticMutation { (draft: Post, cache: OptimisticCache) -> Int in
///     cache.update(["feed"], as: PaginatedState<Int, [Post]>.self) { feed in
///       if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) }
///     }
///     return draft.id
///   }
///   $publish.mutate(draft, invalidates: [["feed"]], optimistic: insert) { draft in
///     try await api.publish(draft)
///   } onError: { error, draftID in
///     print("post \(draftID) was not published:", error)
///   }
/// }
/// ```
///
/// The start step runs when ``Shared/mutate(_:_:policy:scope:invalidates:awaitsRefetches:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)``
/// is called, before it returns, so every holder of a changed query shows the change at once. What it returns (a
/// snapshot, an identifier, anything) reaches the mutation's `onSuccess`, `onError` and `onSettled`.
public struct OptimisticMutation<Arguments: Sendable, Context: Sendable>: Sendable {
  /// Changes cached queries through the given ``OptimisticCache`` and returns the context.
  let start: @Sendable (Arguments, OptimisticCache) -> Context

  /// A start step.
  ///
  /// - Parameter start: Changes cached queries for the mutation's arguments, through the ``OptimisticCache`` it is
  ///   given, and returns the context the callbacks receive.
  public init(_ start: @escaping @Sendable (Arguments, OptimisticCache) -> Context) {
    self.start = start
  }
}
