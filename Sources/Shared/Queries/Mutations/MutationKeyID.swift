/// The identity of a ``MutationKey``: equal names are one mutation state, whatever its types.
///
/// ```swift
/// let same = MutationKey<String, Int>("rename-42").id == MutationKey<Int, Int>("rename-42").id  // true
/// ```
///
/// Mutation names are a namespace of their own: `.mutation("rename")` and `.inMemory("rename")` are two values.
public struct MutationKeyID: Hashable, Sendable {
  /// The name of the mutation.
  public let name: String
}
