/// The identity of an ``InMemoryKey``: equal names are one value, whatever the value type.
///
/// ```swift
/// let sameValue = InMemoryKey<Int>("count").id == InMemoryKey<String>("count").id   // true
/// ```
public struct InMemoryKeyID: Hashable, Sendable {
  /// The name of the value.
  public let name: String
}
