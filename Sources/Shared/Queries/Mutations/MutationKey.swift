/// A key for the state of a mutation, named by a string or by a key of parts, that is freed after its last holder:
/// one per entity (`"rename-\(post.id)"`, `["posts", post.id, "rename"]`) costs nothing once nobody holds it.
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
/// Every holder of one key shares the state (its status, its history, ``Shared/retryLatest(isolation:onAttempt:onSuccess:onError:onSettled:)``),
/// and a running mutation keeps it too. Once the last holder, iteration and running mutation are gone, the state is
/// freed, and the next holder starts from its default: a list of a thousand rows, each with its own mutation,
/// keeps only the rows on screen. An ``InMemoryKey`` (`.inMemory("rename-\(id)")`) would keep every state for the
/// life of its registry.
///
/// ## Naming a mutation after the data it changes
///
/// A mutation's ``key`` is a ``QueryKey``: a name is the key of that one part (`.mutation("rename-42")` is
/// `.mutation(["rename-42"])`). Named with the parts of the queries it changes, a mutation is counted with them by
/// ``QueryStore/activity(matching:)``, which reads how many queries fetch and how many mutations run under a prefix:
///
/// ```swift
/// func renameButton(post: Post, api: API) -> SharedReader<QueryActivity> {
///   @Shared(.mutation(["posts", post.id, "rename"])) var rename = MutationState<String, Post>()
///   $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
///   return SharedRegistry.current.queries.activity(matching: ["posts", post.id])  // its fetches and this rename
/// }
/// ```
public struct MutationKey<Arguments: Sendable, Result: Sendable>: SharedReaderKey, MemoryOnlyKey {
  /// The shared value: the mutation's state.
  public typealias Value = MutationState<Arguments, Result>

  /// The mutation's key: the parts it was named with, or the one part of its name.
  ///
  /// ```swift
  /// let key = MutationKey<String, Post>(["posts", 42, "rename"]).key  // ["posts", 42, "rename"]
  /// ```
  public let key: QueryKey

  /// Creates a key for the mutation named `name`: the key of that one part.
  ///
  /// ```swift
  /// let key = MutationKey<String, Post>("rename-42")
  /// ```
  ///
  /// - Parameter name: The name; every mutation key with this name (or with the key `[name]`) shares one state.
  public init(_ name: String) {
    self.key = [name]
  }

  /// Creates a key for the mutation named by `key`, from general to specific, as a query is.
  ///
  /// ```swift
  /// let key = MutationKey<String, Post>(["posts", 42, "rename"])
  /// ```
  ///
  /// - Parameter key: The key; every mutation key with equal parts shares one state.
  public init(_ key: QueryKey) {
    self.key = key
  }

  /// The name of the mutation: its name when it was made with one (a key of one string), otherwise its key as it
  /// reads in code (`["posts", 42, "rename"]`).
  public var name: String { id.name }

  /// The identity of the state: its key, in the mutation namespace.
  public var id: MutationKeyID { MutationKeyID(key: key) }

  /// A mutation's state is freed after its last holder, iteration and running mutation.
  public var lifetime: SharedKeyLifetime { .whileHeld }
}

extension MutationKey: CustomStringConvertible {
  /// The key as it reads in code: `.mutation("name")`, or `.mutation(["posts", 42, "rename"])`.
  public var description: String {
    if let name = id.singleName { return ".mutation(\"\(name)\")" }
    return ".mutation(\(key))"
  }
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

  /// A key for the state of the mutation named by `key`, freed after its last holder; ``QueryStore/activity(matching:)``
  /// counts its runs under every prefix of `key`.
  ///
  /// ```swift
  /// func renameButton(post: Post, api: API) {
  ///   @Shared(.mutation(["posts", post.id, "rename"])) var rename = MutationState<String, Post>()
  ///   $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
  /// }
  /// ```
  ///
  /// - Parameter key: The key, from general to specific; every mutation key with equal parts shares one state.
  /// - Returns: The key.
  public static func mutation<Arguments, Result>(_ key: QueryKey) -> Self
  where Self == MutationKey<Arguments, Result> {
    MutationKey(key)
  }
}
