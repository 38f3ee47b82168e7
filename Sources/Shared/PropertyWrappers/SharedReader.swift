public import Reactive

/// A read-only view of a shared value: it reads and listens, but cannot write.
///
/// ```swift
/// struct Badge {
///   @SharedReader(.inMemory("counter")) var counter = 0
///   @SharedReader(EnvironmentKey(name: "HOME")) var home = "/"   // a key that only reads its store
/// }
///
/// func watch(_ shared: Shared<Model>) {
///   let reader = SharedReader(shared)                 // from a writable holder
///   let count: SharedReader<Int> = reader.items.count  // members through any key path
///   print(count.wrappedValue)
/// }
/// ```
///
/// Hand a reader to code that should watch a value but never change it. A key that only reads its store (a
/// ``SharedReaderKey`` that is not a ``SharedKey``) can only be held by a reader.
@propertyWrapper
@dynamicMemberLookup
public struct SharedReader<Value: Sendable>: Sendable {
  let source: any SharedReadable<Value>

  init(source: any SharedReadable<Value>) {
    self.source = source
  }

  /// A read-only view of `shared`.
  ///
  /// ```swift
  /// let reader = SharedReader($counter)
  /// ```
  ///
  /// - Parameter shared: The shared value to read.
  public init(_ shared: Shared<Value>) {
    self.init(source: shared)
  }

  /// Reads the shared value of `key`, creating it from the key's store or `wrappedValue` if nobody holds it yet.
  ///
  /// ```swift
  /// struct Header {
  ///   @SharedReader(EnvironmentKey(name: "USER")) var user = "nobody"
  ///   @SharedReader(.fileStorage(URL(filePath: "/var/lib/app/settings.json"))) var settings = Settings()
  /// }
  /// ```
  ///
  /// Any key works: one that only reads its store, one that also saves (``SharedKey``), an in-memory key, a
  /// query. The value is made the same way whichever holder comes first, so a writable holder of the same key
  /// that appears later still saves its changes. When the key loads asynchronously, the value starts from
  /// `wrappedValue` with ``isLoading`` set until the stored value arrives.
  ///
  /// - Parameters:
  ///   - wrappedValue: The value to start from when the key has no value yet.
  ///   - key: The key that names the value.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedReaderKey<Value>) {
    let registry = SharedRegistry.current
    let shared = Shared(reference: registry.reference(reader: key, defaultValue: wrappedValue))
    (key as? any MemoryOnlyKey<Value>)?.holderDidAppear(shared, in: registry)
    self.init(shared)
  }

  /// A reader of a value that never changes.
  ///
  /// - Parameter value: The value.
  public static func constant(_ value: Value) -> SharedReader<Value> {
    SharedReader(Shared(value: value))
  }

  /// The current value.
  public var wrappedValue: Value {
    source.value
  }

  /// This reader, for passing it on and listening to it.
  public var projectedValue: SharedReader<Value> {
    self
  }

  /// The current value and then every change, keeping only the newest when the consumer falls behind.
  public var values: Shared<Value>.Values {
    source.values(buffering: .latest)
  }

  /// The current value and then changes, buffered for each consumer by `policy`.
  ///
  /// - Parameter policy: How changes that arrive faster than the consumer takes them are kept.
  /// - Returns: A sequence that every consumer may iterate independently.
  public func values(buffering policy: BufferingPolicy) -> Shared<Value>.Values {
    source.values(buffering: policy)
  }

  /// Calls `observer` with the new value after every change, until the returned token is cancelled or freed.
  ///
  /// The observer runs on the thread that made the change, after its lock is released, never on an actor of its
  /// own choosing: see ``Shared/observe(_:)``. To get each value on the main actor, iterate ``values`` from a
  /// `@MainActor` task.
  ///
  /// - Parameter observer: Called with each new value.
  /// - Returns: A token that keeps the observer registered.
  public func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    source.observe(observer)
  }

  /// A reader derived from this one: its member at `keyPath`, reached through any key path.
  ///
  /// ```swift
  /// func showCount(of todos: SharedReader<[Todo]>) {
  ///   let count: SharedReader<Int> = todos.count   // a computed property is a member too
  ///   print(count.wrappedValue)
  /// }
  /// ```
  ///
  /// Its listeners hear about changes of the member; when the member is `Equatable`, other changes are skipped.
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: A reader, derived from this one, of the member.
  public subscript<Member: Sendable>(dynamicMember keyPath: any KeyPath<Value, Member> & Sendable) -> SharedReader<
    Member
  > {
    SharedReader<Member>(source: DerivedReader(parent: source, keyPath: keyPath))
  }

  /// The error of the last load of the key's store, or `nil` once a load succeeds; see ``Shared/loadError``.
  ///
  /// ```swift
  /// if let error = $flags.loadError { print("flags unavailable:", error) }
  /// ```
  public var loadError: (any Error)? {
    let root = source.root
    root.trackValue()
    return root.loadError
  }

  /// Whether the key's store is being read; see ``Shared/isLoading``.
  ///
  /// ```swift
  /// func render(_ flags: SharedReader<Flags>) {
  ///   if flags.isLoading { showSpinner() } else { show(flags.wrappedValue) }
  /// }
  /// ```
  public var isLoading: Bool {
    let root = source.root
    root.trackValue()
    return root.isLoading
  }

  /// Loads the value from the key's store again, and waits until it is in memory; see ``Shared/load()``.
  ///
  /// ```swift
  /// try await $flags.load()
  /// ```
  ///
  /// A caller that is cancelled stops waiting at once and throws `CancellationError`; the load goes on.
  ///
  /// - Throws: The error the key's load ended with (also kept in ``loadError``), or `CancellationError`.
  public func load() async throws {
    try await source.root.load()
  }
}

extension SharedReader where Value: OperationTrackable {
  /// Reads the query named by `query`, fetching it if nobody holds it yet or its value is stale.
  ///
  /// ```swift
  /// func showTitle(api: API) {
  ///   @SharedReader(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
  ///   print(post.value?.title ?? "")
  /// }
  /// ```
  ///
  /// A reader counts as a holder, as a ``Shared`` of the query does: it joins a fetch under way, and refetches a
  /// stale value.
  ///
  /// - Parameters:
  ///   - wrappedValue: The state to start from when nobody holds the query yet.
  ///   - query: The query.
  public init(wrappedValue: @autoclosure () -> Value, _ query: Query<Value>) {
    self.init(Shared(wrappedValue: wrappedValue(), query))
  }
}

extension SharedReader: CustomStringConvertible {
  /// The current value, described.
  public var description: String {
    "SharedReader(\(wrappedValue))"
  }
}
