import Reactive

/// Holds one query at a time and moves to another with ``load(_:)``, showing the value of the key it held before
/// (flagged) until the new key has one of its own.
///
/// ```swift
/// final class FeedModel: Sendable {
///   let api: API
///   let feed: QueryHolder<[Post]>
///
///   init(api: API) {
///     self.api = api
///     feed = QueryHolder(.query(["feed", 1]) { try await api.page(1) })
///   }
///
///   func show(page: Int) {
///     feed.load(.query(["feed", page]) { [api] in try await api.page(page) })
///   }
/// }
/// ```
///
/// A `@Shared` property holds one key for its life; a view model whose key changes (a page number, a search text)
/// holds a `QueryHolder` instead. Each ``load(_:)`` holds the new query as a holder would (it fetches if its value
/// is missing or stale), lets go of the previous one, and from then on ``shown`` follows the new query. While the
/// new query has no value, ``shown`` keeps the last value of an earlier key with ``ShownState/isPlaceholder`` set,
/// so a list does not flash empty between pages; once the new query has a value, that value shows and the earlier
/// one is let go. The previous value is never written into any query's state: the cache, other holders and
/// ``QueryStore/fetch(_:servingStale:)->Value`` never see it.
///
/// The holder's queries are made in the ``SharedRegistry/current`` registry of the task that created it.
public final class QueryHolder<Value: Sendable>: Sendable {
  private struct State: ~Copyable {
    var machine: QueryHolderMachine<Value>
    /// The held query's value.
    var current: Shared<OperationState<Value>>?
    /// Keeps the observer of the held query registered.
    var token: ObserverToken?
  }

  private let registry: SharedRegistry
  private let state: Lock<State>
  /// What shows; written after the lock, in the order of the machine's decisions.
  private let output: Shared<ShownState<Value>>
  /// The sequence of the last decision written into `output`, read and written under `output`'s lock.
  private let written = Lock<UInt64>(0)

  /// A holder of `query`.
  ///
  /// ```swift
  /// let holder = QueryHolder(.query(["search", ""]) { try await api.search("") }, placeholder: [])
  /// ```
  ///
  /// - Parameters:
  ///   - query: The query to hold first; it fetches if its value is missing or stale, as for a `@Shared` holder.
  ///   - placeholder: A value to show (flagged) while the held query has no value and no earlier key's value is
  ///     kept.
  ///   - keepsPreviousValue: Whether the value of the key held before shows while the new key loads; `true` by
  ///     default.
  public init(
    _ query: Query<OperationState<Value>>,
    placeholder: Value? = nil,
    keepsPreviousValue: Bool = true
  ) {
    registry = SharedRegistry.current
    let machine = QueryHolderMachine(keepsPreviousValue: keepsPreviousValue, placeholder: placeholder)
    state = Lock(State(machine: machine))
    output = Shared(value: ShownState(OperationState(), placeholder: placeholder))
    load(query)
  }

  /// What to show: the held query's state, with its value or, while it has none, the previous key's value or the
  /// placeholder (flagged).
  ///
  /// ```swift
  /// let token = model.feed.shown.observe { shown in render(shown.value ?? [], dimmed: shown.isPlaceholder) }
  /// ```
  public var shown: SharedReader<ShownState<Value>> {
    SharedReader(output)
  }

  /// The held query's value, as a `@Shared` holder of its key has it: refetch it, await it, write it.
  ///
  /// ```swift
  /// model.feed.query.refetch()
  /// ```
  public var query: Shared<OperationState<Value>> {
    // Set by the initializer before it returns, and only ever replaced.
    state.withLock { $0.current! }
  }

  /// Moves to `query`: holds it (fetching if its value is missing or stale), lets go of the query held until now,
  /// and shows the new one, keeping the previous key's value (flagged) until the new key has a value.
  ///
  /// ```swift
  /// model.feed.load(.query(["feed", 2]) { try await api.page(2) })
  /// ```
  ///
  /// Loading the key held now keeps it, and what shows; the query's options and fetcher are those of the first
  /// query made for the key, as for any holder.
  ///
  /// - Parameter query: The query to hold.
  public func load(_ query: Query<OperationState<Value>>) {
    // Made outside the lock: a new holder may start a fetch.
    let holder = Shared<OperationState<Value>>(
      reference: registry.reference(memoryOnly: query, defaultValue: { OperationState() }))
    registry.queries.addHolder(query, holder: holder, in: registry)
    typealias Left = (Shared<OperationState<Value>>?, ObserverToken?, Value?)
    // The query left, its observer and the value no longer kept are let go after the lock.
    let generation = state.withLockReleasingAfter {
      state -> (result: QueryHolderMachine<Value>.Generation, released: Left) in
      let (generation, released) = state.machine.moved(leaving: state.current?.wrappedValue)
      defer {
        state.current = holder
        state.token = nil
      }
      return (generation, (state.current, state.token, released))
    }
    // Observed first, then read: no change falls between the two.
    let token = holder.observe { [weak self] _ in self?.changed(generation) }
    // A token for a generation that ended is let go after the lock.
    state.withLockReleasingAfter { state -> (result: Void, released: ObserverToken?) in
      guard state.machine.generation == generation else { return ((), token) }
      state.token = token
      return ((), nil)
    }
    changed(generation)
  }

  /// The query of `generation` changed: shows its state as the machine decides.
  private func changed(_ generation: QueryHolderMachine<Value>.Generation) {
    // The value the machine no longer keeps is let go after the lock.
    let publication = state.withLockReleasingAfter {
      state -> (result: QueryHolderMachine<Value>.Publication?, released: Value?) in
      // Read under this lock, so that decisions follow the query's changes in order.
      guard state.machine.generation == generation, let current = state.current else { return (nil, nil) }
      let (publication, released) = state.machine.changed(generation, state: current.wrappedValue)
      return (publication, released)
    }
    guard let publication else { return }
    // A decision that lost the race to a newer one is dropped (its write still tells listeners, with no change).
    output.withLockReleasingReplaced { shown in
      self.written.withLock { last in
        guard publication.sequence > last else { return }
        last = publication.sequence
        shown = publication.shown
      }
    }
  }
}
