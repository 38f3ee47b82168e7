import Reactive

/// Holds a list of queries at once, which the program may change, and shows their states combined: TanStack Query's
/// `useQueries` with `combine`.
///
/// ```swift
/// final class PostsModel: Sendable {
///   let posts: QueriesHolder<Post, CombinedQueries<Post>>
///
///   init(ids: [Int], api: API) {
///     posts = QueriesHolder(ids.map { id in .query(["posts", id]) { try await api.post(id) } })
///   }
/// }
/// ```
///
/// Each query is held as a `@Shared` holder of its key holds it: it fetches if its value is missing or stale, and a
/// fetch is shared with every other holder of the same key (a detail screen, another list). ``combined`` is the
/// queries' states combined by the `combine` function the holder was made with (``CombinedQueries`` by default), in
/// the order of the queries, and changes whenever one of them does. ``load(_:)`` replaces the list: queries that
/// stay are not fetched again, new ones fetch as they need to, and those left are let go (collected after their
/// `gcTime` unless something else holds them).
///
/// The holder's queries are made in the ``SharedRegistry/current`` registry of the task that created it. It holds
/// plain queries (`Query<OperationState<Value>>`); hold paginated queries each with a `@Shared` holder of its own.
public final class QueriesHolder<Value: Sendable, Combined: Sendable>: Sendable {
  private struct State: ~Copyable {
    /// Grows with each ``load(_:)``: an observer of an earlier list changes nothing.
    var generation: UInt64 = 0
    /// Grows with each combination decided: an older one is never written over a newer one.
    var sequence: UInt64 = 0
    var members: [Shared<OperationState<Value>>] = []
    /// The key of each member, in order.
    var keys: [QueryKey] = []
    var tokens: [ObserverToken] = []
  }

  private let registry: SharedRegistry
  private let combine: @Sendable ([OperationState<Value>]) -> Combined
  private let state = Lock(State())
  /// What shows; written after the lock, in the order of the decisions.
  private let output: Shared<Combined>
  /// The sequence of the last combination written into `output`, read and written under `output`'s lock.
  private let written = Lock<UInt64>(0)

  /// A holder of `queries`, whose states `combine` combines.
  ///
  /// ```swift
  /// let titles = QueriesHolder(queries) { states in states.compactMap { $0.value?.title } }
  /// ```
  ///
  /// - Parameters:
  ///   - queries: The queries to hold, in order; each fetches if its value is missing or stale.
  ///   - combine: Combines the queries' states, in order; called after every change, outside every lock of the
  ///     library.
  public init(
    _ queries: [Query<OperationState<Value>>],
    combine: @escaping @Sendable ([OperationState<Value>]) -> Combined
  ) {
    registry = SharedRegistry.current
    self.combine = combine
    output = Shared(value: combine([]))
    load(queries)
  }

  /// The queries' states, combined; changes whenever one of them does.
  ///
  /// ```swift
  /// let token = model.posts.combined.observe { posts in render(posts) }
  /// ```
  public var combined: SharedReader<Combined> {
    SharedReader(output)
  }

  /// The held queries' values, in order, as `@Shared` holders of their keys have them: refetch one, await it,
  /// write it.
  public var queries: [Shared<OperationState<Value>>] {
    state.withLock { $0.members }
  }

  /// Replaces the held queries with `queries`: holds the new list (each query fetching if its value is missing or
  /// stale), lets go of the queries held until now, and combines the new list.
  ///
  /// ```swift
  /// model.posts.load(ids.map { id in .query(["posts", id]) { try await api.post(id) } })
  /// ```
  ///
  /// A query in both lists (one key in both) stays held throughout by the holder it had, so it is neither collected
  /// nor fetched again, however stale its value (a new holder would refetch it).
  ///
  /// - Parameter queries: The queries to hold, in order.
  public func load(_ queries: [Query<OperationState<Value>>]) {
    // A query of the list held until now keeps its holder: a new holder would refetch a stale value.
    let held = state.withLock { state in
      Dictionary(zip(state.keys, state.members), uniquingKeysWith: { first, _ in first })
    }
    // Held outside the lock: a new holder may start a fetch.
    let members = queries.map { query in
      if let member = held[query.key] { return member }
      let member = Shared<OperationState<Value>>(
        reference: registry.reference(memoryOnly: query, defaultValue: { OperationState() }))
      registry.queries.addHolder(query, holder: member, in: registry)
      return member
    }
    // The list left and its observers are let go after the lock.
    let generation = state.withLockReleasingAfter {
      state -> (result: UInt64, released: ([Shared<OperationState<Value>>], [ObserverToken])) in
      state.generation += 1
      defer {
        state.members = members
        state.keys = queries.map(\.key)
        state.tokens = []
      }
      return (state.generation, (state.members, state.tokens))
    }
    // Observed first, then read: no change falls between the two.
    let tokens = members.map { member in member.observe { [weak self] _ in self?.changed(generation) } }
    // Tokens for a generation that ended are let go after the lock.
    state.withLockReleasingAfter { state -> (result: Void, released: [ObserverToken]) in
      guard state.generation == generation else { return ((), tokens) }
      state.tokens = tokens
      return ((), [])
    }
    changed(generation)
  }

  /// A query of the list of `generation` changed: combines the list as it is now.
  private func changed(_ generation: UInt64) {
    let decided = state.withLock { state -> (sequence: UInt64, states: [OperationState<Value>])? in
      guard state.generation == generation else { return nil }
      state.sequence += 1
      // Read under this lock, so that combinations follow the queries' changes in order.
      return (state.sequence, state.members.map(\.wrappedValue))
    }
    guard let decided else { return }
    let combined = combine(decided.states)
    // A combination that lost the race to a newer one is dropped (its write still tells listeners, with no change).
    output.withLockReleasingReplaced { shown in
      self.written.withLock { last in
        guard decided.sequence > last else { return }
        last = decided.sequence
        shown = combined
      }
    }
  }
}

extension QueriesHolder where Combined == CombinedQueries<Value> {
  /// A holder of `queries`, showing their states together as ``CombinedQueries``: the values, the first error,
  /// whether any is fetching.
  ///
  /// ```swift
  /// let queries: [Query<OperationState<Post>>] = ids.map { id in .query(["posts", id]) { try await api.post(id) } }
  /// let posts = QueriesHolder(queries)
  /// ```
  ///
  /// - Parameter queries: The queries to hold, in order; each fetches if its value is missing or stale.
  public convenience init(_ queries: [Query<OperationState<Value>>]) {
    self.init(queries) { CombinedQueries($0) }
  }
}
