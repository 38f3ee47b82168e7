/// One key of a running program, as an inspector shows it: what it is, who uses it, and its value.
///
/// ```swift
/// for key in SharedRegistry.current.inspector.snapshot().keys {
///   print(key.id, key.operation?.status.rawValue ?? "-", key.value.text)
/// }
/// ```
public struct InspectedKey: Sendable, Identifiable {
  /// The kind of a key.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// A value kept in memory (``InMemoryKey``, `.inMemory(_:)`).
    case inMemory
    /// A value kept in a file (`.fileStorage(_:)`).
    case file
    /// A value kept in a store of the program's own, or another key with no store.
    case custom
    /// A query of the registry's ``QueryStore``.
    case query
    /// A mutation's state under a ``MutationKey``.
    case mutation
    /// A ``MutationQueue``: its entries, whether it is paused, its file's save error. Named by its file's path.
    case mutationQueue
  }

  /// The key's identity in an inspection: `"<kind>:<name>"`, such as `query:["todos"]`,
  /// `file:/tmp/settings.json` or `inMemory:count`. Events name keys the same way.
  public var id: String
  /// The key as the program names it: a query's key such as `["todos"]`, a file's path, an in-memory value's name.
  public var name: String
  /// The kind of key.
  public var kind: Kind
  /// The type of the value, as Swift names it.
  public var valueType: String
  /// The value, summarized.
  public var value: ValueSummary
  /// A number that grows with each change of the value.
  public var version: UInt64
  /// The references that keep the value alive besides the registry and the store: holders and their copies,
  /// derived values, observers' tokens, running fetches and operations. A permanent key's value (an in-memory one)
  /// lives without any. Counted from the value's references as the snapshot reads them: approximate while other
  /// threads make or drop references to the value.
  public var holders: Int
  /// The `for await` loops over the value's changes.
  public var iterations: Int
  /// The observers of the value's changes.
  public var observers: Int
  /// The operation the value tracks, for queries, mutations and other operation states.
  public var operation: InspectedOperation?
  /// What the query store knows, for queries.
  public var query: InspectedQuery?
  /// How the key's store stands, for keys with a store.
  public var store: InspectedStore?
  /// The query's key, to act on with ``SharedInspector/perform(_:on:)``; `nil` for other kinds.
  public var queryKey: QueryKey?
  /// The recent runs of a mutation, oldest first, with their arguments, status, error and times: for a key whose
  /// value is a ``MutationState``, `nil` for others.
  public var mutationRuns: [InspectedMutationRun]?

  /// An inspected key with the given parts.
  ///
  /// - Parameters:
  ///   - name: The key as the program names it.
  ///   - kind: The kind of key.
  ///   - valueType: The type of the value.
  ///   - value: The value, summarized.
  ///   - version: The value's version.
  ///   - holders: The references that keep the value alive.
  ///   - iterations: The `for await` loops over the value.
  ///   - observers: The value's observers.
  public init(
    name: String,
    kind: Kind,
    valueType: String,
    value: ValueSummary,
    version: UInt64 = 0,
    holders: Int = 0,
    iterations: Int = 0,
    observers: Int = 0
  ) {
    self.id = Self.id(kind: kind, name: name)
    self.name = name
    self.kind = kind
    self.valueType = valueType
    self.value = value
    self.version = version
    self.holders = holders
    self.iterations = iterations
    self.observers = observers
  }

  /// The identity of a key of `kind` named `name`.
  ///
  /// ```swift
  /// let id = InspectedKey.id(kind: .query, name: QueryKey(["todos"]).description)  // query:["todos"]
  /// ```
  ///
  /// - Parameters:
  ///   - kind: The kind of key.
  ///   - name: The key as the program names it.
  /// - Returns: `"<kind>:<name>"`.
  public static func id(kind: Kind, name: String) -> String {
    "\(kind.rawValue):\(name)"
  }

  /// The identity of the query named `key`.
  static func id(query key: QueryKey) -> String {
    id(kind: .query, name: key.description)
  }
}
