import Synchronization

/// The queries of one ``SharedRegistry``: invalidate them by key prefix, write into them, refetch them.
///
/// ```swift
/// let store = SharedRegistry.current.queries
/// store.invalidate(matching: ["posts"])            // every key that starts with ["posts"]
/// store.setValue(for: ["posts", 42]) { (post: inout Post?) in post?.title = "Edited" }
/// ```
///
/// Keys are kept in a tree by their parts, so invalidating a prefix visits only the keys under it, however many
/// other keys there are.
public final class QueryStore: Sendable {
  private let state = Lock(State())

  private struct State: ~Copyable {
    let root = QueryIndexNode()
    var count = 0
  }

  init() {}

  /// The number of queries the store keeps.
  public var count: Int {
    state.withLock { $0.count }
  }

  /// Whether the store keeps a query named `key`.
  ///
  /// - Parameter key: The query's name.
  /// - Returns: `true` while the query's value is cached.
  public func contains(_ key: QueryKey) -> Bool {
    state.withLock { $0.root.node(at: key.parts)?.record != nil }
  }

  // MARK: Invalidation

  /// Marks every query whose key starts with `prefix` as stale: those with holders refetch now, the others when
  /// their next holder appears.
  ///
  /// - Parameter prefix: The key prefix; `["posts"]` reaches `["posts", 42]` and `["posts", 42, "comments"]`.
  /// - Returns: How many queries were marked.
  @discardableResult
  public func invalidate(matching prefix: QueryKey) -> Int {
    let (marked, refetches) = state.withLock { state -> (Int, [@Sendable () -> Void]) in
      var refetches: [@Sendable () -> Void] = []
      var marked = 0
      state.root.node(at: prefix.parts)?.visitRecords { record in
        marked += 1
        if let refetch = record.invalidate(store: self) { refetches.append(refetch) }
      }
      return (marked, refetches)
    }
    for refetch in refetches { refetch() }
    return marked
  }

  /// Refetches the query named `key` now, if the store keeps it.
  ///
  /// - Parameter key: The query's name.
  /// - Returns: Whether there was such a query.
  @discardableResult
  public func refetch(_ key: QueryKey) -> Bool {
    let refetch = state.withLock { state -> (@Sendable () -> Void)? in
      guard let record = state.root.node(at: key.parts)?.record else { return nil }
      record.touch()
      return record.makeRefetch(store: self)
    }
    refetch?()
    return refetch != nil
  }

  /// Refetches the held queries under `prefix` that are stale, each time `trigger` emits: a reconnect, the app
  /// becoming active, a timer.
  ///
  /// ```swift
  /// let subscription = store.refetch(on: network.reconnections, matching: ["posts"])
  /// ```
  ///
  /// Fresh queries, and queries nobody holds, are left alone (the latter refetch on their next holder).
  ///
  /// - Parameters:
  ///   - trigger: Any sequence; each element is one trigger. Iteration stops when it ends or fails.
  ///   - prefix: Which queries; all of them by default.
  /// - Returns: A subscription that stops listening to `trigger` when cancelled or freed.
  public func refetch<Trigger: AsyncSequence & Sendable>(
    on trigger: Trigger,
    matching prefix: QueryKey = []
  ) -> SharedSubscription {
    let task = Task.detached { [weak self] in
      do {
        for try await _ in trigger {
          guard let self else { return }
          self.refetchStale(matching: prefix)
        }
      } catch {}
    }
    return SharedSubscription { task.cancel() }
  }

  /// Refetches the held, stale queries under `prefix`; returns how many.
  @discardableResult
  func refetchStale(matching prefix: QueryKey) -> Int {
    let candidates = state.withLock { state -> [QueryCandidate] in
      var candidates: [QueryCandidate] = []
      state.root.node(at: prefix.parts)?.visitRecords { record in
        if let candidate = record.candidate(store: self) { candidates.append(candidate) }
      }
      return candidates
    }
    // Freshness reads the clock, which is the caller's code: outside the lock.
    let stale = candidates.filter { candidate in
      candidate.fetchedAt.map { $0.elapsed() >= candidate.staleTime } ?? true
    }
    for candidate in stale { candidate.refetch() }
    return stale.count
  }

  // MARK: Writing

  /// Changes the state of the query named `key`, as every holder's `withLock` would.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The query's state type.
  ///   - body: Changes the state.
  /// - Returns: Whether there was such a query with that state type.
  @discardableResult
  public func update<State: OperationTrackable>(
    _ key: QueryKey,
    as type: State.Type,
    _ body: (inout State) -> Void
  ) -> Bool {
    let shared = state.withLock { ($0.root.node(at: key.parts)?.record as? QueryRecord<State>)?.shared }
    guard let shared else { return false }
    shared.withLock(body)
    return true
  }

  /// Changes the value of the query named `key`, whose state is an ``OperationState`` (an optimistic edit, say).
  ///
  /// ```swift
  /// store.setValue(for: ["posts", 42]) { (post: inout Post?) in post?.title = "Edited" }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - body: Changes the value; `nil` while nothing was fetched.
  /// - Returns: Whether there was such a query with that value type.
  @discardableResult
  public func setValue<Value: Sendable>(for key: QueryKey, _ body: (inout Value?) -> Void) -> Bool {
    update(key, as: OperationState<Value>.self) { body(&$0.value) }
  }

  // MARK: Holders

  /// Registers a holder of `query` and fetches if the value is missing, stale or invalidated.
  func demand<State: OperationTrackable>(_ query: Query<State>, holder: Shared<State>, in registry: SharedRegistry) {
    guard case .root(let root) = holder.reference else { return }  // A type mismatch got a value of its own.
    let (stopwatch, conflict, created) = state.withLock {
      state -> (Stopwatch?, String?, QueryRecord<State>?) in
      let node = state.root.makeNode(at: query.key.parts)
      if let record = node.record as? QueryRecord<State> {
        record.touch()
        let conflict = record.query.source == query.source ? nil : record.query.source
        return (record.isInvalidated ? nil : record.fetchedAt, conflict, nil)
      }
      let record = QueryRecord(query: query, root: root)
      node.record = record
      state.count += 1
      return (nil, nil, record)
    }
    if let conflict {
      registry.report(
        SharedDiagnostic(
          kind: .conflictingFetchers(first: conflict, second: query.source), key: String(describing: query)))
    }
    if created != nil {
      root.attachment(QueryLink.self, make: QueryLink.init).link(to: self, key: query.key, behavior: query.behavior)
      startCollecting(query)
    }
    if let stopwatch, stopwatch.elapsed() < query.options.staleTime { return }
    fetch(query, shared: holder)
  }

  /// Fetches `query` into `shared`, joining a fetch already under way.
  func fetch<State: OperationTrackable>(_ query: Query<State>, shared: Shared<State>) {
    let key = query.key
    let fetch = query.fetch
    let clock = query.options.clock
    shared.run(policy: .dedupe, retry: query.options.retry, clock: clock, isolation: nil) { [weak self] in
      // An invalidation that lands while a fetch runs means its result may predate the change: fetch again (in
      // this same run, which every joined caller waits for) until one completes with no invalidation meanwhile.
      var rounds = 0
      while true {
        rounds += 1
        let generation = self?.beginFetch(key)
        let value = try await fetch(QueryYield(shared: shared))
        // Fresh from this moment: recorded before the state shows the value, so no reader sees it stale.
        let isCurrent = self?.markFetched(key, generation: generation, stopwatch: Stopwatch(clock)) ?? true
        if isCurrent || rounds >= 3 || Task.isCancelled { return value }
      }
    }
  }

  /// Notes that a fetch of `key` starts; returns the invalidation generation it fetches for.
  private func beginFetch(_ key: QueryKey) -> UInt64? {
    state.withLock { state in
      guard let record = state.root.node(at: key.parts)?.record else { return nil }
      record.touch()
      return record.generation
    }
  }

  /// Records a finished fetch; returns `false` (and leaves the query stale) if it was invalidated meanwhile.
  private func markFetched(_ key: QueryKey, generation: UInt64?, stopwatch: Stopwatch) -> Bool {
    state.withLock { state in
      guard let record = state.root.node(at: key.parts)?.record else { return true }
      guard generation == nil || record.generation == generation else { return false }
      record.didFetch(stopwatch)
      return true
    }
  }

  // MARK: Garbage collection

  /// Checks the query a few times per `gcTime` and removes it once it has gone unused for a whole `gcTime`.
  private func startCollecting<State: OperationTrackable>(_ query: Query<State>) {
    let key = query.key
    let clock = query.options.clock
    let interval = query.options.gcTime / QueryRecord<State>.checksPerGCTime
    // Weak, and detached so it does not inherit (and keep alive) the task-local registry: a store whose registry is
    // gone stops collecting and is freed with its queries.
    Task.detached { [weak self] in
      while true {
        do { try await clock.sleep(for: interval) } catch { return }
        guard let self, !self.collect(key) else { return }
      }
    }
  }

  /// One check of `key`: returns `true` when the query is gone (removed now, or earlier).
  private func collect(_ key: QueryKey) -> Bool {
    let (isGone, removed) = state.withLock { state -> (Bool, (any QueryRecordProtocol)?) in
      guard let node = state.root.node(at: key.parts), let record = node.record else { return (true, nil) }
      guard record.checkUnused() else { return (false, nil) }
      node.record = nil
      state.count -= 1
      state.root.prune(key.parts)
      return (true, record)
    }
    withExtendedLifetime(removed) {}  // The value is released after the lock.
    return isGone
  }
}

/// Time since a moment, on some clock.
struct Stopwatch: Sendable {
  let elapsed: @Sendable () -> Duration

  init(_ clock: any Clock<Duration>) {
    func start<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
      let start = clock.now
      return { start.duration(to: clock.now) }
    }
    elapsed = start(clock)
  }
}
