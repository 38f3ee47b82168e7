import Foundation
import TestSupport

@testable import SharedState

/// A list of queries held by a `QueriesHolder`, observers of values derived from holders, and the inspector's
/// forces and restores, in a simulated program; their rules and invariants.
///
/// The list's holder of each key it holds is `holders[key][0]`, so that the store's removals detach it and a new
/// holder reattaches it as any other; a `release` step never lets it go (only a load without its key does).
extension SimulationRunner {
  // MARK: Steps

  func performHolders(_ step: SimulationHolderStep) async -> SimulationFailure? {
    holderHarness.follow(registry)
    switch step {
    case .load(let keys):
      return await load(keys)
    case .observe(let key, let form, let changes):
      observe(key: key, form: form, changesWhileRegistering: changes)
      return nil
    case .inspect(let key, let moves):
      return await inspect(key: key, moves: moves)
    }
  }

  /// The holder a `release` step lets go of: the newest, unless it is the list's.
  func popReleasedHolder(_ key: Int) -> (shared: Shared<State>, attached: Bool)? {
    holderHarness.follow(registry)
    let listHolds = holderHarness.listKeys.contains(key) ? 1 : 0
    guard holders[key].count > listHolds, let released = holders[key].popLast() else { return nil }
    holderHarness.holderLeft(key: key, index: holders[key].count)
    return released
  }

  /// The list loads `keys`: the model holds the new ones and lets go of those left; a query in both lists must not
  /// be fetched again (unless it owed a fetch already).
  private func load(_ keys: [Int]) async -> SimulationFailure? {
    let harness = holderHarness
    let old = harness.listKeys
    let kept = keys.filter(old.contains)
    let owing = Set(kept.filter { model.queries[$0].owesFetchSince != nil })
    let underWay = fetchesUnderWay()
    let started = server.startedFetches
    let isOnline = model.isOnline
    for key in keys where !old.contains(key) {
      model.hold(key, step: step, fetchUnderWay: underWay.contains(key), detached: reattach(key))
    }
    let queries = keys.map { query($0) }
    let list: QueriesHolder<[Int], CombinedQueries<[Int]>>
    if let existing = harness.list {
      list = existing
      list.load(queries)
    } else {
      list = QueriesHolder(queries)
      harness.list = list
    }
    let members = list.queries
    for key in old where !keys.contains(key) {
      let member = holders[key].removeFirst()
      harness.holderLeft(key: key, index: 0)
      model.release(key, attached: member.attached)
    }
    for (index, key) in keys.enumerated() {
      if old.contains(key) {
        holders[key][0].shared = members[index]
      } else {
        holders[key].insert((members[index], true), at: 0)
        harness.holderInsertedFirst(key: key)
      }
    }
    harness.listKeys = keys
    if let failure = await settleAndCheck() { return failure }
    guard isOnline else { return nil }
    let startedNow = server.fetchesStarted(since: started)
    for key in kept where !owing.contains(key) && startedNow[key, default: 0] > 0 {
      return SimulationFailure(
        step: self.step,
        invariant: "q\(key), in the list before and after its load, was fetched again (\(startedNow[key] ?? 0) times)",
        detail: holdersSnapshot())
    }
    return nil
  }

  /// Registers an observer of a value derived from the newest attached holder of `key`; see
  /// ``SimulationHolderStep/observe(key:form:changesWhileRegistering:)``.
  private func observe(key: Int, form: SimulationDerivedForm, changesWhileRegistering: Bool) {
    let harness = holderHarness
    guard let index = holders[key].lastIndex(where: \.attached) else { return }
    let holder = holders[key][index].shared
    // A change needs a value to append to; an unwrapped member needs a value to start from.
    if (changesWhileRegistering || form == .unwrapped) && holder.wrappedValue.value?.last == nil { return }
    let gap = harness.gap
    let keyPath = \State.[lastItemThrough: gap]
    // Made before the gap is armed: making an unwrapped value reads the getter once.
    let derived: (observe: (@escaping @Sendable (Int?) -> Void) -> ObserverToken, current: () -> Int?)
    switch form {
    case .member:
      let member = holder[dynamicMember: keyPath]
      derived = ({ member.observe($0) }, { member.wrappedValue })
    case .selection:
      let selection = holder.select { state in state[lastItemThrough: gap] }
      derived = ({ selection.observe($0) }, { selection.wrappedValue })
    case .readerMember:
      let member = SharedReader(holder)[dynamicMember: keyPath]
      derived = ({ member.observe($0) }, { member.wrappedValue })
    case .unwrapped:
      guard let unwrapped = Shared(holder[dynamicMember: keyPath]) else { return }
      derived = ({ observer in unwrapped.observe { observer($0) } }, { unwrapped.wrappedValue })
    }
    harness.changes += 1
    let item = 7_000 + harness.changes
    let change: @Sendable () -> Void = { holder.withLock { $0.value?.append(item) } }
    if changesWhileRegistering { gap.arm(change) }
    let heard = Collector<Int?>()
    let token = derived.observe { heard.append($0) }
    // No getter ran while it registered: the change comes right after the registration.
    if changesWhileRegistering && gap.disarm() { change() }
    harness.observers.append(
      SimulationHolderHarness.Observer(
        key: key, holder: index, form: form, token: token, current: derived.current, registered: derived.current(),
        heard: heard))
    // The change back, which the observer must hear whatever value it started from.
    if changesWhileRegistering { holder.withLock { $0.value?.removeAll { $0 == item } } }
  }

  /// The inspector's `moves` on `key`, then a restore: a restore must never show a value older than the confirmed
  /// one (a refetch that ended a force, and a force after it, are restored to the refetched value).
  private func inspect(key pick: Int, moves: [SimulationInspectorMove]) async -> SimulationFailure? {
    // A held query is awake (a sleeping one cannot be forced); online, a refetch reaches the server.
    let held = (0..<SimulationSetup.keyCount).filter { key in
      model.queries[key].exists && model.queries[key].holders > 0 && !model.changes.contains { $0.key == key }
    }
    guard model.isOnline, !held.isEmpty else { return nil }
    let key = held[pick % held.count]
    let inspector = registry.inspector
    let name: QueryKey = ["sim", key]
    for move in moves + [.restore] {
      switch move {
      case .forceError: inspector.perform(.forceError(message: "forced"), on: name)
      case .forceLoading: inspector.perform(.forceLoading, on: name)
      case .snapshot: _ = inspector.snapshot()
      case .refetch:
        guard inspector.perform(.refetch, on: name) else { break }
        if let failure = await answerRefetch(of: key) { return failure }
      case .restore:
        inspector.perform(.restore, on: name)
        guard !model.queries[key].isValueUnknown, let holder = holders[key].first(where: \.attached)?.shared else {
          break
        }
        let shown = holder.wrappedValue.value
        if shown != model.shown(key) {
          return SimulationFailure(
            step: step,
            invariant:
              "a restore of q\(key) shows \(shown.map { "\($0)" } ?? "nothing"), the confirmed value is "
              + "\(model.shown(key).map { "\($0)" } ?? "nothing")",
            detail: holdersSnapshot())
        }
      }
    }
    return nil
  }

  /// Answers the fetch of `key` that the inspector's refetch started or joined, with data, and waits until the
  /// holders show it and the fetch has ended.
  ///
  /// A refetch made as the fetch before it ends may join that fetch, whose value shows already: then nothing reaches
  /// the server, and the holders show no fetch.
  private func answerRefetch(of key: Int) async -> SimulationFailure? {
    let giveUp = ContinuousClock.now + .seconds(2)  // A deadlock guard.
    let generation = model.queries[key].generation
    let attached = { self.holders[key].filter(\.attached).map(\.shared.wrappedValue) }
    while ContinuousClock.now < giveUp {
      await quiet(until: giveUp)
      guard let pick = server.fetchesUnderWay.firstIndex(where: { $0.key == key && $0.generation == generation }),
        let answer = server.answerFetch(pick: pick, succeeds: true)
      else {
        if !fetchesUnderWay().contains(key) && attached().allSatisfy({ !$0.isFetching }) { return nil }
        continue
      }
      model.fetchAnswered(answer)
      while ContinuousClock.now < giveUp {
        await quiet(until: giveUp)
        // A refetch may follow the fetch answered (one that an invalidation overtook is not joined).
        let underWay = fetchesUnderWay().contains(key)
        if attached().allSatisfy({ $0.value == answer.data && $0.isFetching == underWay }) { return nil }
      }
    }
    return SimulationFailure(
      step: step, invariant: "the inspector's refetch of q\(key) was not answered and shown", detail: holdersSnapshot())
  }

  /// Yields until the server, the store's activity and the holders stay the same over a few rounds of yields (or
  /// `giveUp`, a deadlock guard, passes), as settling does, without checking the invariants (a forced state breaks
  /// some on purpose).
  private func quiet(until giveUp: ContinuousClock.Instant) async {
    var last = ""
    var stableRounds = 0
    while stableRounds < 4 && ContinuousClock.now < giveUp {
      for _ in 0..<16 { await Task.yield() }
      var parts = ["\(server.fingerprint)", "\(store.activity.wrappedValue.fetchingQueries)"]
      for list in holders {
        for holder in list {
          let state = holder.shared.wrappedValue
          parts.append("\(state.value ?? [-9]),\(state.isFetching),\(state.status)")
        }
      }
      let now = parts.joined(separator: "|")
      if now == last {
        stableRounds += 1
      } else {
        stableRounds = 0
        last = now
      }
    }
  }

  // MARK: Invariants

  /// Every observer of a derived value stands at the derived value now (it heard every change, a change back
  /// included), and the list shows its queries' values.
  func holdersBrokenInvariant() -> String? {
    let harness = holderHarness
    guard harness.registry === registry else { return nil }
    for observer in harness.observers {
      let holder = holders[observer.key][observer.holder].shared
      // An unwrapped value skips `nil`: while the value has no last item, it keeps the one before.
      if observer.form == .unwrapped && holder.wrappedValue.value?.last == nil { continue }
      let current = observer.current()
      if observer.known != current {
        return
          "an observer of the \(observer.form) of q\(observer.key) stands at \(observer.known.map { "\($0)" } ?? "nil"), "
          + "the value at \(current.map { "\($0)" } ?? "nil") (heard \(observer.heard.elements))"
      }
    }
    if let list = harness.list {
      let combined = list.combined.wrappedValue.values
      let values = list.queries.map(\.wrappedValue.value)
      if combined != values { return "the list combines \(combined), its queries show \(values)" }
    }
    return nil
  }

  /// What changes while the list and the observers hear changes.
  func holdersFingerprint() -> String {
    let harness = holderHarness
    let heard = harness.observers.map { "\($0.heard.elements.count)" }.joined(separator: ",")
    return "\(heard)/\(harness.list.map { "\($0.combined.wrappedValue.values)" } ?? "")"
  }

  /// The store and the model, with the list's keys.
  private func holdersSnapshot() -> String {
    "the list holds \(holderHarness.listKeys)\n" + snapshot()
  }
}
