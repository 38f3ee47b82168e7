/// A key for a value kept in memory, named by a string.
///
/// ```swift
/// struct TabBar {
///   @Shared(.inMemory("selectedTab")) var selectedTab = Tab.home
/// }
/// ```
///
/// Values of in-memory keys live as long as their ``SharedRegistry``: for the program's registry, the life of the
/// process, like a global. A holder that appears after every other holder is gone still sees the last value.
///
/// An in-memory value has no store: the key loads nothing, saves nothing and watches nothing, so it is a
/// ``SharedReaderKey`` with no `save` at all. Its values are writable all the same: `@Shared(.inMemory(name))`
/// holds them, and `@SharedReader(.inMemory(name))` reads them.
public struct InMemoryKey<Value: Sendable>: SharedReaderKey, MemoryOnlyKey {
  /// The name of the value.
  public let name: String

  /// Creates a key for the value named `name`.
  ///
  /// ```swift
  /// let key = InMemoryKey<Int>("counter")
  /// ```
  ///
  /// - Parameter name: The name; every in-memory key with this name shares one value.
  public init(_ name: String) {
    self.name = name
  }

  /// The identity of the value: its name, in the in-memory namespace.
  public var id: InMemoryKeyID { InMemoryKeyID(name: name) }

  /// In-memory values live as long as their registry.
  public var lifetime: SharedKeyLifetime { .permanent }
}

extension InMemoryKey: CustomStringConvertible {
  /// The key as it reads in code: `.inMemory("name")`.
  public var description: String { ".inMemory(\"\(name)\")" }
}

extension SharedReaderKey {
  /// A key for a value kept in memory and named by `name`.
  ///
  /// ```swift
  /// struct CounterView {
  ///   @Shared(.inMemory("counter")) var counter = 0
  /// }
  /// ```
  ///
  /// - Parameter name: The name; every in-memory key with this name shares one value.
  /// - Returns: The key.
  public static func inMemory<Value>(_ name: String) -> Self where Self == InMemoryKey<Value> {
    InMemoryKey(name)
  }
}
