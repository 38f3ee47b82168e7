extension Shared {
  /// Holds the state of the mutation named by `key`, made from `wrappedValue` if nobody holds it.
  ///
  /// ```swift
  /// func renameButton(post: Post, api: API) {
  ///   @Shared(.mutation("rename-\(post.id)")) var rename = MutationState<String, Post>()
  ///   $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
  /// }
  /// ```
  ///
  /// The state lives in memory, every holder may write it, and it is freed after its last holder, iteration and
  /// running mutation (see ``MutationKey``). If the key already has a state, `wrappedValue` is not evaluated.
  ///
  /// - Parameters:
  ///   - wrappedValue: The state to start from when nobody holds the mutation.
  ///   - key: The key that names the mutation.
  public init<Arguments: Sendable, Result: Sendable>(
    wrappedValue: @autoclosure () -> Value,
    _ key: MutationKey<Arguments, Result>
  ) where Value == MutationState<Arguments, Result> {
    self.init(reference: SharedRegistry.current.reference(memoryOnly: key, defaultValue: wrappedValue))
  }
}
