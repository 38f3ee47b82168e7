extension QueryStore {
  /// Refetches the held queries under `prefix` each time `source` says the device came back online, as each
  /// query's ``QueryOptions/refetchOnReconnect`` says (if stale, by default).
  ///
  /// Set ``onlineStatus`` instead: the one source then both pauses work offline and refetches on a reconnect. A
  /// query that must not refetch says ``RefetchCondition/never`` in its options; work that must not pause says
  /// ``NetworkMode/always``. A store that has an ``onlineStatus`` and this subscription to the same source hears
  /// each reconnect twice: a query of ``RefetchCondition/always`` may then refetch twice.
  ///
  /// Only a change from offline to online refetches: the status the source starts with does not. A refetch joins a
  /// fetch under way; disabled queries and queries nobody holds are left alone (the latter refetch on their next
  /// holder if stale).
  ///
  /// - Parameters:
  ///   - source: Tells whether the device is online.
  ///   - prefix: Which queries; all of them by default.
  /// - Returns: A subscription that stops listening to `source` when cancelled or freed.
  @available(*, deprecated, message: "Set onlineStatus: it also refetches the held queries on a reconnect")
  public func refetch(onReconnect source: some OnlineStatusSource, matching prefix: QueryKey = []) -> SharedSubscription
  {
    follow(source.onlineStatuses(), trigger: .reconnect, matching: prefix)
  }

  /// Refetches the held queries under `prefix` each time `source` says the app became active, as each query's
  /// ``QueryOptions/refetchOnFocus`` says (if stale, by default), and keeps their intervals from refetching while it
  /// says the app is inactive.
  ///
  /// ```swift
  /// let subscription = SharedRegistry.current.queries.refetch(onFocus: ApplicationFocus.platform)
  /// ```
  ///
  /// Only a change from inactive to active refetches: the status the source starts with does not. A refetch joins a
  /// fetch under way; disabled queries and queries nobody holds are left alone.
  ///
  /// While `source` says the app is inactive (its status at the moment of each tick, the one it starts with
  /// included), a tick of a query's ``QueryOptions/refetchInterval`` under `prefix` does not refetch it, unless the
  /// query asks to (``QueryOptions/refetchIntervalInBackground``). The interval's timer keeps its beat: once the app
  /// is active again, the next tick refetches, and the change to active may refetch first as
  /// ``QueryOptions/refetchOnFocus`` says. A store that follows no focus source counts the app as active; once the
  /// subscription is cancelled or freed, `source` no longer counts.
  ///
  /// - Parameters:
  ///   - source: Tells whether the app is active.
  ///   - prefix: Which queries; all of them by default.
  /// - Returns: A subscription that stops listening to `source` when cancelled or freed.
  public func refetch(onFocus source: some FocusSource, matching prefix: QueryKey = []) -> SharedSubscription {
    let focus = services.focus
    let id = focus.follow(source, matching: prefix)
    let following = follow(source.focusStatuses(), trigger: .focus, matching: prefix)
    return SharedSubscription {
      following.cancel()
      focus.forget(id)
    }
  }

  /// Whether the query named `key` is stale: its value is missing, invalidated, or older than its
  /// ``QueryOptions/staleTime``; `nil` when the store keeps no such query.
  ///
  /// ```swift
  /// if SharedRegistry.current.queries.isStale(["posts", 42]) == true { showRefreshHint() }
  /// ```
  ///
  /// A stale value is still shown; it is what a new holder (``QueryOptions/refetchOnHolder``), a reconnect or the
  /// app becoming active refetches. Reads the query's clock.
  ///
  /// - Parameter key: The query's name.
  /// - Returns: Whether the value is stale, or `nil` if the query is not cached.
  public func isStale(_ key: QueryKey) -> Bool? {
    isStale(key, stopwatch: nil)
  }

  /// Whether the query named `key` is stale, if the store keeps it and it measures from `stopwatch` (when given).
  func isStale(_ key: QueryKey, stopwatch known: Stopwatch?) -> Bool? {
    let found = state.withLock { state -> (Duration?, Duration, Stopwatch)? in
      guard let record = state.record(named: key) else { return nil }
      // A record collected and made again has a time of its own: not the one the caller's holder was made with.
      if let known, !record.stopwatch.isSame(as: known) { return nil }
      return (record.fetchedAt, record.staleTime, record.stopwatch)
    }
    guard let (fetchedAt, staleTime, stopwatch) = found else { return nil }
    guard let fetchedAt else { return true }
    // The clock is the caller's code: read after the lock.
    return stopwatch.elapsed() - fetchedAt >= staleTime
  }

  /// Iterates `statuses` in a task of its own, triggering `trigger` on each change from `false` to `true`.
  private func follow(
    _ statuses: AsyncStream<Bool>,
    trigger: QueryTrigger,
    matching prefix: QueryKey
  ) -> SharedSubscription {
    // Weak, and detached so it does not inherit (and keep alive) the task-local registry.
    let task = Task.detached { [weak self] in
      var previous: Bool?
      for await status in statuses {
        defer { previous = status }
        guard status, previous == false else { continue }
        guard let self else { return }
        self.trigger(trigger, matching: prefix)
      }
    }
    return SharedSubscription { task.cancel() }
  }

  /// Runs the timer `key` on `clock`: every interval, the queries on it refetch, until it has none.
  func startTimer(on clock: any Clock<Duration>, key: QueryIntervalKey) {
    // Weak, and detached, as the sweeper is: a store whose registry is gone stops and is freed.
    Task.detached { [weak self] in
      while true {
        do { try await clock.sleep(for: key.interval, waitingFor: .refetchInterval) } catch { return }
        guard let self, self.tick(key) != nil else { return }
      }
    }
  }

  /// One tick of the timer `key`: each of its queries that is held (or refetches while unheld) refetches, unless a
  /// focus source followed for it says the app is inactive and it does not refetch in the background. Returns how
  /// many refetches it set off, or `nil` when the timer has no queries left and stops.
  @discardableResult
  func tick(_ key: QueryIntervalKey) -> Int? {
    let registry = self.registry
    // The sources are the program's code: read before the lock.
    let background = services.focus.backgroundPrefixes()
    let effects = state.withLock { state -> [QueryRecordEffect]? in
      guard let records = state.intervals.tick(key) else { return nil }
      var effects: [QueryRecordEffect] = []
      for record in records {
        if !background.isEmpty, !record.refetchesIntervalInBackground,
          background.contains(where: { record.key.hasPrefix($0) })
        {
          continue
        }
        if record.refetchesWhileUnheld { record.wakeIfSleeping(in: registry, store: self) }
        // An interval refetches whatever the value's age: the time is not read.
        let effect = record.triggered(.interval, now: .zero, store: self)
        if !effect.isNone { effects.append(effect) }
      }
      return effects
    }
    guard let effects else { return nil }
    for effect in effects { effect() }
    return effects.count
  }
}

extension Shared where Value: OperationTrackable {
  /// Whether this holder's query is stale: its value is missing, invalidated, or older than its
  /// ``QueryOptions/staleTime``; `nil` when this value is not a cached query's.
  ///
  /// ```swift
  /// func holderIsStale(api: API) {
  ///   @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
  ///   if $post.isStale == true { print("showing an older copy") }
  /// }
  /// ```
  ///
  /// The same as ``QueryStore/isStale(_:)`` with this holder's key. Reads the query's clock.
  public var isStale: Bool? {
    let link = root.attachment(QueryLink.self, make: QueryLink.init)
    guard let (store, key, stopwatch) = link.record else { return nil }
    return store.isStale(key, stopwatch: stopwatch)
  }
}
