/// The rules of the refetches that no step of the app asks for: a `refetchInterval`, the app becoming active
/// (`refetchOnFocus`) and the device coming back online (`refetchOnReconnect`), as `QueryOptions` documents them.
///
/// - An interval refetches each query on its timer at each tick, whatever the value's age: the held ones, and the
///   unheld ones only with `refetchesWhileUnheld`. A refetch joins a fetch under way rather than starting another.
///   The queries of one store that share a clock and an interval share one timer, so one tick refetches all of
///   them; the first tick comes at most one interval after a query is made.
/// - While the app is inactive (the store follows a `ManualFocus` that says so), a tick refetches nothing unless the
///   queries ask to be refetched in the background (`refetchIntervalInBackground`); the timer keeps its beat.
/// - Becoming active refetches each held query that is stale (`.ifStale`, the default), and nothing else.
/// - Coming back online (the store's `onlineStatus`, wired once) resumes the paused fetches, then refetches each held
///   query that is stale: a query whose fetch was paused is fetched once, not twice.
///
/// The tick's phase is not promised (the timer starts with the first query on it), so the model does not guess it:
/// it checks that a tick refetches every query it should, only those, once each, and that no query waits longer
/// than an interval for one.
struct SimulationTriggerModel {
  let setup: SimulationSetup
  /// Since when each query has been, at every check, one the interval must refetch with no fetch under way.
  var idleSince: [Int: Duration] = [:]
  var isFocused = true

  init(setup: SimulationSetup) {
    self.setup = setup
  }

  /// Whether the interval must refetch `key` at its next tick (a fetch under way answers for it).
  func isOnTimer(_ key: Int, model: SimulationModel, cached: Set<Int>) -> Bool {
    guard setup.refetchInterval != nil, model.isOnline, model.queries[key].exists, cached.contains(key) else {
      return false
    }
    guard isFocused || setup.refetchesIntervalInBackground || !setup.followsFocus else { return false }
    return model.queries[key].holders > 0 || setup.refetchesWhileUnheld
  }

  /// Notes which queries wait for a tick; returns the broken rule if one waited longer than an interval.
  mutating func check(model: SimulationModel, cached: Set<Int>, underWay: Set<Int>, now: Duration) -> String? {
    guard let interval = setup.refetchInterval else { return nil }
    for key in 0..<SimulationSetup.keyCount {
      guard isOnTimer(key, model: model, cached: cached), !underWay.contains(key) else {
        idleSince[key] = nil
        continue
      }
      let since = idleSince[key] ?? now
      idleSince[key] = since
      // The tick is due within an interval; a tick's length of slack for the phase's rounding.
      if now - since > interval + SimulationSetup.tick {
        return "q\(key) waited from \(since) to \(now) for a refetch, longer than its refetchInterval (\(interval))"
      }
    }
    return nil
  }

  /// What one tick of the clock must have started: `before` is what was so as it began, `started` how many fetches
  /// of each query reached the server in it.
  func checkTick(
    onTimerBefore: Set<Int>, underWayBefore: Set<Int>, started: [Int: Int], cachedAfter: Set<Int>
  ) -> String? {
    for (key, count) in started where count > 1 {
      return "q\(key) started \(count) fetches in one tick"
    }
    guard setup.refetchInterval != nil else { return nil }
    let refetched = Set(started.filter { $0.value > 0 }.keys)
    for key in refetched {
      if !onTimerBefore.contains(key) {
        return "the interval refetched q\(key), which nobody held (and it does not ask to be refetched unheld)"
      }
      if underWayBefore.contains(key) {
        return "the interval started another fetch of q\(key) while one was under way (it joins it)"
      }
    }
    guard let ticked = refetched.min() else { return nil }
    // One timer: a tick refetches every query on it that has no fetch under way (and is still cached).
    for key in onTimerBefore.subtracting(underWayBefore).intersection(cachedAfter) where !refetched.contains(key) {
      return "the interval refetched q\(ticked) but not q\(key), which shares its timer"
    }
    return nil
  }

  /// The app became active (`isFocused`); returns the queries that now owe a fetch: the held stale ones.
  mutating func focus(_ isFocused: Bool, model: SimulationModel, underWay: Set<Int>) -> [Int] {
    defer { self.isFocused = isFocused }
    guard isFocused, !self.isFocused else { return [] }
    return (0..<SimulationSetup.keyCount).filter { key in
      let query = model.queries[key]
      return query.exists && query.holders > 0 && !query.isFreshnessUnknown && model.isStale(key)
        && !underWay.contains(key)
    }
  }

  /// The device came back online; returns the queries that now owe a fetch: the held stale ones.
  func reconnect(model: SimulationModel, underWay: Set<Int>) -> [Int] {
    (0..<SimulationSetup.keyCount).filter { key in
      let query = model.queries[key]
      return query.exists && query.holders > 0 && !query.isFreshnessUnknown && model.isStale(key)
        && !underWay.contains(key)
    }
  }

  /// What a reconnect may have started: one fetch at most of each query, its paused fetch and its refetch being one.
  func checkReconnect(started: [Int: Int]) -> String? {
    for (key, count) in started where count > 1 {
      return "coming back online started \(count) fetches of q\(key): the refetch did not join its paused fetch"
    }
    return nil
  }

  /// What a focus step may have started: a fetch only of a held query that was stale as the app became active.
  func checkFocus(mayRefetch: Set<Int>, started: [Int: Int]) -> String? {
    for (key, count) in started where count > 0 {
      if count > 1 { return "becoming active started \(count) fetches of q\(key)" }
      if !mayRefetch.contains(key) { return "the focus step refetched q\(key), which was not held and stale" }
    }
    return nil
  }
}
