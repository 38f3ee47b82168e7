/// The identity of a ``MutationKey``: equal keys are one mutation state, whatever its types.
///
/// ```swift
/// let same = MutationKey<String, Int>("rename-42").id == MutationKey<Int, Int>("rename-42").id  // true
/// ```
///
/// Mutation keys are a namespace of their own: `.mutation("rename")` and `.inMemory("rename")` are two values, and
/// so are `.mutation(["posts", 42])` and the query `["posts", 42]`. A name is the key of that one part:
/// `.mutation("rename")` and `.mutation(["rename"])` are one state.
public struct MutationKeyID: Hashable, Sendable {
  /// The mutation's key.
  public let key: QueryKey

  /// The name of the mutation: its name when it was made with one, otherwise its key as it reads in code.
  public var name: String {
    singleName ?? key.description
  }

  /// The name, when the key is one string (a key made from a name).
  var singleName: String? {
    key.parts.count == 1 ? key.parts[0] as? String : nil
  }
}
