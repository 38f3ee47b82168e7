/// Which mutation runs ``QueryStore/mutations(matching:)`` and ``QueryStore/runningMutationCount(_:)`` reach: a
/// key prefix or an exact ``MutationKey``, a status, and optionally a test of your own. TanStack Query's mutation
/// filters.
///
/// ```swift
/// let store = SharedRegistry.current.queries
/// let pending = store.mutations(matching: .prefix(["posts"]).status(.pending))
/// let failedRenames = store.mutations(matching: .exactly(["posts", 42, "rename"]).status(.error))
/// let long = store.mutations(matching: .all.matching { $0.arguments(as: String.self)?.count ?? 0 > 100 })
/// ```
public struct MutationFilter: Sendable {
  /// The mutation key, or the prefix of the keys, that the filter reaches.
  public var key: QueryKey
  /// Whether only ``key`` itself matches (`true`), or every key that starts with it (`false`).
  public var isExact: Bool
  /// Only the runs with this status; `nil`, the default, for every status.
  public var status: OperationStatus?
  /// A further test on each run the other conditions accept, or `nil` for none. It is your code: it runs outside
  /// every lock of the library.
  public var predicate: (@Sendable (MutationSnapshot) -> Bool)?

  /// A filter of `key` (an exact key when `isExact`, otherwise a prefix).
  ///
  /// ```swift
  /// let filter = MutationFilter(key: ["posts"], isExact: false)
  /// ```
  ///
  /// - Parameters:
  ///   - key: The mutation key or key prefix.
  ///   - isExact: Whether only `key` itself matches.
  public init(key: QueryKey, isExact: Bool) {
    self.key = key
    self.isExact = isExact
  }

  /// The runs of every mutation whose key starts with `prefix`; `[]` reaches every mutation with a key.
  ///
  /// ```swift
  /// let posts = store.mutations(matching: .prefix(["posts"]))
  /// ```
  ///
  /// - Parameter prefix: The key prefix.
  /// - Returns: The filter.
  public static func prefix(_ prefix: QueryKey) -> Self {
    Self(key: prefix, isExact: false)
  }

  /// The runs of the mutation named `key` and no other.
  ///
  /// ```swift
  /// let renames = store.mutations(matching: .exactly(["posts", 42, "rename"]))
  /// ```
  ///
  /// - Parameter key: The mutation's key.
  /// - Returns: The filter.
  public static func exactly(_ key: QueryKey) -> Self {
    Self(key: key, isExact: true)
  }

  /// The runs of every mutation with a key.
  ///
  /// ```swift
  /// let everything = store.mutations(matching: .all)
  /// ```
  public static var all: Self { .prefix([]) }

  /// This filter, narrowed to the runs with `status`.
  ///
  /// ```swift
  /// let running = store.mutations(matching: .all.status(.pending))
  /// ```
  ///
  /// - Parameter status: ``OperationStatus/pending`` for the runs under way, ``OperationStatus/success`` or
  ///   ``OperationStatus/error`` for the ended ones, ``OperationStatus/idle`` for the cancelled ones.
  /// - Returns: The narrowed filter.
  public func status(_ status: OperationStatus) -> Self {
    var narrowed = self
    narrowed.status = status
    return narrowed
  }

  /// This filter, narrowed to the runs that `predicate` accepts as well.
  ///
  /// ```swift
  /// let toPost42 = MutationFilter.prefix(["posts"]).matching { $0.key.parts.dropFirst().first as? Int == 42 }
  /// ```
  ///
  /// - Parameter predicate: A test on a run; your code, run outside every lock of the library.
  /// - Returns: The narrowed filter.
  public func matching(_ predicate: @escaping @Sendable (MutationSnapshot) -> Bool) -> Self {
    var narrowed = self
    if let earlier = self.predicate {
      narrowed.predicate = { run in earlier(run) && predicate(run) }
    } else {
      narrowed.predicate = predicate
    }
    return narrowed
  }

  /// Whether the filter's key reaches the mutation named `key`.
  func reaches(_ key: QueryKey) -> Bool {
    isExact ? key == self.key : key.hasPrefix(self.key)
  }

  /// Whether `run` passes the status and the predicate (the app's code: call outside every lock).
  func accepts(_ run: MutationSnapshot) -> Bool {
    if let status, run.status != status { return false }
    return predicate?(run) ?? true
  }
}
