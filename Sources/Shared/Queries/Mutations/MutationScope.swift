/// A name that mutations share to run one at a time, in the order `mutate` was called, whatever their keys and
/// whichever values hold their states.
///
/// ```swift
/// func saveDraft(_ text: String, post: Post, api: API) {
///   @Shared(.mutation(["posts", post.id, "draft"])) var draft = MutationState<String, Post>()
///   $draft.mutate(text, scope: "post-\(post.id)") { text in try await api.saveDraft(post.id, text) }
/// }
///
/// func publish(post: Post, api: API) {
///   @Shared(.mutation(["posts", post.id, "publish"])) var publish = MutationState<Int, Post>()
///   $publish.mutate(post.id, scope: "post-\(post.id)") { id in try await api.publish(id) }  // after the draft
/// }
/// ```
///
/// A mutation in a scope waits until every mutation called before it in that scope has settled (its `onSettled`
/// included), then runs as its policy says on its own value. Mutations of different scopes, and mutations with no
/// scope, do not wait for each other. Scopes belong to a ``SharedRegistry``: its mutations share them.
///
/// While a mutation waits for its turn, its run is recorded in ``MutationState/history`` (pending) and counted by
/// ``QueryStore/activity``, but its state shows nothing yet: its status turns pending when its turn comes, as a
/// queued ``OperationPolicy/serial`` run's does. Cancelling its task while it waits takes it out of the line: it
/// settles with `CancellationError` and never runs, and the mutations behind it keep their order.
public struct MutationScope: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
  /// The scope's name: mutations with equal names share the scope.
  public let id: String

  /// The scope named `id`.
  ///
  /// ```swift
  /// let scope = MutationScope("post-\(post.id)")
  /// ```
  ///
  /// - Parameter id: The name that the mutations of the scope share.
  public init(_ id: String) {
    self.id = id
  }

  /// The scope named by a string literal, interpolations included: `scope: "drafts"`, `scope: "post-\(post.id)"`.
  ///
  /// ```swift
  /// let scope: MutationScope = "drafts"
  /// ```
  ///
  /// - Parameter value: The scope's name.
  public init(stringLiteral value: String) {
    self.id = value
  }

  /// The scope's name.
  public var description: String { id }
}
