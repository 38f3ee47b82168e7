/// A key for the state of a mutation, named by a string, that is freed after its last holder: one per entity
/// (`"rename-\(post.id)"`) costs nothing once nobody holds it.
///
/// ```swift
/// struct PostRow {
///   let post: Post
///   @Shared var rename: MutationState<String, Post>
///
///   init(post: Post) {
///     self.post = post
///     _rename = Shared(wrappedValue: MutationState(), .mutation("rename-\(post.id)"))
///   }
/// }
/// ```
///
/// Every holder of one name shares the state (its status, its history, ``Shared/retryLatest(isolation:onAttempt:onSuccess:onError:onSettled:)``),
/// and a running mutation keeps it too. Once the last holder, iteration and running mutation are gone, the state is
/// freed, and the next holder starts from its default: a list of a thousand rows, each with its own mutation,
/// keeps only the rows on screen. An ``InMemoryKey`` (`.inMemory("rename-\(id)")`) would keep every state for the
/// life of its registry.
public struct MutationKey<Arguments: Sendable, Result: Sendable>: SharedReaderKey, MemoryOnlyKey {
  /// The shared value: the mutation's state.
  public typealias Value = MutationState<Arguments, Result>

  /// The name of the mutation.
  public let name: String

  /// Creates a key for the mutation named `name`.
  ///
  /// ```swift
  /// let key = MutationKey<String, Post>("rename-42")
  /// ```
  ///
  /// - Parameter name: The name; every mutation key with this name shares one state.
  public init(_ name: String) {
    self.name = name
  }

  /// The identity of the state: its name, in the mutation namespace.
  public var id: MutationKeyID { MutationKeyID(name: name) }

  /// A mutation's state is freed after its last holder, iteration and running mutation.
  public var lifetime: SharedKeyLifetime { .whileHeld }
}

extension MutationKey: CustomStringConvertible {
  /// The key as it reads in code: `.mutation("name")`.
  public var description: String { ".mutation(\"\(name)\")" }
}

extension SharedReaderKey {
  /// A key for the state of the mutation named `name`, freed after its last holder.
  ///
  /// ```swift
  /// func renameButton(post: Post, api: API) {
  ///   @Shared(.mutation("rename-\(post.id)")) var rename = MutationState<String, Post>()
  ///   $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
  /// }
  /// ```
  ///
  /// - Parameter name: The name; every mutation key with this name shares one state.
  /// - Returns: The key.
  public static func mutation<Arguments, Result>(_ name: String) -> Self
  where Self == MutationKey<Arguments, Result> {
    MutationKey(name)
  }
}
