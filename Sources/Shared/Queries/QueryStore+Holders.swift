import Foundation

extension QueryStore {
  // MARK: Holders

  /// Registers a holder of `query` and fetches if the value is missing, stale or invalidated.
  ///
  /// `link` is the value's ``QueryLink``, when the caller has it: one found in code specialized for `State` where it
  /// is called (a holder's initializer, inlined into its caller) costs a fraction of one found here; so do the
  /// writes of the fetch it starts, when the caller gives them (`writer`).
  @usableFromInline
  func addHolder<State: OperationTrackable>(
    _ query: Query<State>,
    holder: Shared<State>,
    link: QueryLink? = nil,
    in registry: SharedRegistry,
    writer: QueryValueWriter<State>? = nil
  ) {
    attach(query, holder: holder, link: link, in: registry, asHolder: true, writer: writer)
  }

  /// Makes the record of `query` with the value of `holder` (whose ``QueryLink`` is `link`, when the caller has it)
  /// if the store keeps none; `asHolder`: `holder` is a new holder, which fetches if the value is missing, stale or
  /// invalidated.
  func attach<State: OperationTrackable>(
    _ query: Query<State>,
    holder: Shared<State>,
    link: QueryLink? = nil,
    in registry: SharedRegistry,
    asHolder: Bool,
    writer: QueryValueWriter<State>? = nil
  ) {
    guard case .root(let root) = holder.reference else { return }  // A type mismatch got a value of its own.
    if let defaults = services.defaultOptions(for: query) {
      // Attached as made with the store's options (which it then keeps as its own).
      let query = query.withDefaultOptions(defaults)
      attach(query, holder: holder, link: link, in: registry, asHolder: asHolder, writer: writer)
      return
    }
    // The clock is read outside the lock. The value's link knows its record's time (the record keeps the value,
    // so a holder of an existing record gets the linked value); otherwise a new record's time starts here.
    let link = link ?? root.attachment(QueryLink.self, make: QueryLink.init)
    // A sleeping record's new box has no link yet: its time is the record's, which the lock below answers with
    // (a new key takes the lock once); it is read outside the lock and the lock asked again.
    let known = link.stopwatch(in: self)
    // A value no link knew is new: its query may start from the persisted cache.
    let query = known == nil ? restoringPersistedValue(query) : query
    var stopwatch = known ?? Stopwatch(query.options.operation.clock)
    // A time started just now has measured nothing: the clock is not read again for a new record.
    var attached = attach(
      query, root: root, stopwatch: stopwatch, isKnown: known != nil, now: known == nil ? .zero : stopwatch.elapsed(),
      asHolder: asHolder, writer: writer)
    if case .measure(let existing) = attached {
      stopwatch = existing
      attached = attach(
        query, root: root, stopwatch: stopwatch, isKnown: true, now: stopwatch.elapsed(), asHolder: asHolder,
        writer: writer)
    }
    // A known time is never answered with another.
    guard case .attached(let effect, let conflict, let created, let replaced, let sweeper) = attached else {
      return
    }
    // The records of other keys were evicted over the store's capacity.
    if services.inspector.isAttached { inspected(replaced.map(\.key).filter { $0 != query.key }, .collected) }
    if services.instruments.isAttached { instrumentRemoved(replaced.filter { $0.key != query.key }, .evicted) }
    persistedValuesCollected(replaced.filter { $0.key != query.key })
    withExtendedLifetime(replaced) {}
    if let conflict {
      registry.report(
        SharedDiagnostic(
          kind: .conflictingFetchers(first: conflict.description, second: query.fetcherLocation.description),
          key: String(describing: query)))
    }
    if created { link.link(to: self, key: query.key, kind: query.kind, stopwatch: stopwatch) }
    if let sweeper {
      startSweeper(sweeper, on: query.options.operation.clock, key: QueryClockKey(query.options.operation.clock))
    }
    effect()
  }

  /// What the locked part of attaching a value to its record did.
  private enum Attached {
    /// Attached: what to start, the location of the record's other fetcher, whether the record was made here, the
    /// records it replaced (released after the lock), the sweeper task to start.
    case attached(
      effect: QueryRecordEffect,
      conflict: CodeLocation?,
      created: Bool,
      replaced: [any QueryRecordProtocol],
      sweeper: QuerySweeper.Start?)
    /// The record exists and measures from this time, which the caller did not know: read it and ask again.
    case measure(Stopwatch)
  }

  /// The locked part of ``attach(_:holder:in:asHolder:)``: finds or makes the record of `query` with the value in
  /// `root`, a new one measuring from `stopwatch`, read at `now`. An existing record whose time the caller did not know
  /// (`isKnown` false: its value slept, so no link knew it) answers with its time, read outside the lock: a new key
  /// takes the store's lock once.
  private func attach<State: OperationTrackable>(
    _ query: Query<State>,
    root: SharedRoot<State>,
    stopwatch: Stopwatch,
    isKnown: Bool,
    now: Duration,
    asHolder: Bool,
    writer: QueryValueWriter<State>?
  ) -> Attached {
    state.withLock { state -> Attached in
      let node = state.root.makeNode(at: query.key.parts)
      // A new key's node has no record: no cast (a generic type lookup) to find that out.
      if node.record != nil, let record = node.record as? QueryRecord<State> {
        // The clock is the caller's code: read outside the lock.
        guard isKnown || record.stopwatch.isSame(as: stopwatch) else { return .measure(record.stopwatch) }
        let first = record.definition.fetcherLocation
        let conflict = first == query.fetcherLocation ? nil : first
        // A record made since its time was read started its own time: this holder's reading is of another clock.
        let now = record.stopwatch.isSame(as: stopwatch) ? now : .zero
        state.bounds.use(record)
        record.wakeIfSleeping(in: nil, store: self, root: root)
        let effect = asHolder ? record.holderAppeared(now: now, store: self, writer: writer) : .none
        return .attached(effect: effect, conflict: conflict, created: false, replaced: [], sweeper: nil)
      }
      // A record of another state type is not expected here (its value keeps the registry's entry, so a holder of
      // another type gets a value of its own); if one is, it and its value are released after the lock.
      var replaced: [any QueryRecordProtocol] = []
      var stopped = QueryRecordEffect.none
      if let other = node.record {
        // Its fetch reaches it directly: stopped for good, as by `remove(_:)`.
        stopped = other.stopFetches(removing: true)
        state.remove(other)
        replaced.append(other)
      }
      state.serial += 1
      let record = QueryRecord(
        query: query, definition: state.definitions.definition(of: query), root: root, stopwatch: stopwatch,
        serial: state.serial)
      state.count += 1
      // Optimistic changes made before the query was (to a restored value, by a queued mutation) show over its
      // value: attached now, applied after the lock (they are the program's code), once the value is seeded.
      let adopted = attachLayer(of: query.key, to: root)
      // Removing the other record may have pruned its node.
      (replaced.isEmpty ? node : state.root.makeNode(at: query.key.parts)).record = record
      let sweeper = state.bounds.add(record)
      let ticks = state.intervals.add(record)
      // An initial state counts as fetched when it was obtained, before a holder decides whether to fetch; it is
      // written after the lock, before anything that decision starts.
      var effect = stopped
      if let initial = query.initial {
        record.valueSet(obtainedAt: now - initial.age())
        if initial.isInvalidated { _ = record.invalidated(refetchesNow: false) }
        effect.append(.write(.seed(initial.state), to: root))
      }
      if let adopted { effect.append(.write(.adopt(adopted), to: root)) }
      if let ticks { effect.append(.startTimer(ticks, clock: query.options.operation.clock, store: self)) }
      if asHolder { effect.append(record.holderAppeared(now: now, store: self, writer: writer)) }
      // The new record is the most recently used, and held while `holder` lives: it is not the one evicted.
      replaced += state.evictOverCapacity()
      return .attached(effect: effect, conflict: nil, created: true, replaced: replaced, sweeper: sweeper)
    }
  }
}
