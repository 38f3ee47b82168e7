import Reactive

/// The counts behind ``QueryStore/activity`` and ``QueryStore/activity(matching:)``: the fetches and the mutation
/// runs under way, by key, and the readers of the counts under a prefix.
///
/// Each fetch or run that starts or ends is counted in one step under the tracker's lock, which also decides which
/// readers hear of it; their values are written after the lock (the changes are increments, which commute, so the
/// order in which two threads write them does not matter). A reader made for a prefix starts, in the step that
/// registers it, from the fetches and runs under way under that prefix, so exactly the ones that end after it are
/// taken off it again. Readers are kept weakly: one nobody holds any more is dropped the next time it is looked at.
final class QueryActivityTracker: Sendable {
  /// Every fetch and every run, whatever its key: ``QueryStore/activity``.
  let all = Shared(value: QueryActivity())

  private let state = Lock(State())

  private struct State: ~Copyable {
    /// The fetches under way, by query key (a query fetches once at a time, but a removed query's fetch may
    /// overlap the next one of the query made again under its key).
    var fetching: [QueryKey: Int] = [:]
    /// The mutation runs under way, by mutation key (mutations held under another kind of key are not here).
    var mutating: [QueryKey: Int] = [:]
    var readers: [Reader] = []
  }

  /// The value of ``QueryStore/activity(matching:)`` for `prefix`, while someone holds it.
  private struct Reader {
    let prefix: QueryKey
    weak var box: ReactiveBox<QueryActivity>?
  }

  /// What a change to the counts is.
  private enum Change {
    case fetch(Int)
    case mutation(Int)

    func apply(to activity: inout QueryActivity) {
      switch self {
      case .fetch(let delta): activity.fetchingQueries += delta
      case .mutation(let delta): activity.runningMutations += delta
      }
    }
  }

  init() {}

  /// A fetch of the query named `key` started.
  func fetchStarted(_ key: QueryKey) {
    change(.fetch(1), key: key)
  }

  /// A fetch of the query named `key` ended (after ``fetchStarted(_:)``).
  func fetchEnded(_ key: QueryKey) {
    change(.fetch(-1), key: key)
  }

  /// A run of the mutation named `key` (`nil`: a mutation held under another kind of key) started.
  func mutationStarted(_ key: QueryKey?) {
    change(.mutation(1), key: key)
  }

  /// A run of the mutation named `key` ended (after ``mutationStarted(_:)``).
  func mutationEnded(_ key: QueryKey?) {
    change(.mutation(-1), key: key)
  }

  /// The counts of the fetches and runs under `prefix`: the reader made earlier for it, if someone still holds it,
  /// or a new one.
  func activity(matching prefix: QueryKey) -> Shared<QueryActivity> {
    let box = state.withLockReleasingAfter { state -> (result: ReactiveBox<QueryActivity>, released: Released) in
      // The readers looked at are kept alive until after the lock (the last reference to one may go meanwhile), and
      // so are the prefixes of the ones dropped: a key's parts are the app's values.
      var released = Released()
      var found: ReactiveBox<QueryActivity>?
      state.readers.removeAll { reader in
        guard let box = reader.box else {
          released.prefixes.append(reader.prefix)
          return true
        }
        released.boxes.append(box)
        if found == nil && reader.prefix == prefix { found = box }
        return false
      }
      if let found { return (found, released) }
      var counts = QueryActivity()
      for (key, count) in state.fetching where key.hasPrefix(prefix) { counts.fetchingQueries += count }
      for (key, count) in state.mutating where key.hasPrefix(prefix) { counts.runningMutations += count }
      let box = ReactiveBox(counts)
      state.readers.append(Reader(prefix: prefix, box: box))
      return (box, released)
    }
    return Shared(reference: .box(box))
  }

  /// How many readers the tracker keeps, the ones nobody holds any more and not yet dropped included.
  var readerCount: Int {
    state.withLock { $0.readers.count }
  }

  /// Counts `change` of a fetch or run of `key`, then tells every reader it concerns.
  private func change(_ change: Change, key: QueryKey?) {
    let released = state.withLock { state -> Released in
      var released = Released()
      guard let key else { return released }
      switch change {
      case .fetch(let delta): released.key = Self.count(key, by: delta, in: &state.fetching)
      case .mutation(let delta): released.key = Self.count(key, by: delta, in: &state.mutating)
      }
      guard !state.readers.isEmpty else { return released }
      // A reader whose prefix does not match is not looked at: only matching ones are loaded, and the ones found gone
      // are dropped.
      state.readers.removeAll { reader in
        guard key.hasPrefix(reader.prefix) else { return false }
        guard let box = reader.box else {
          released.prefixes.append(reader.prefix)
          return true
        }
        released.boxes.append(box)
        return false
      }
      return released
    }
    all.withLock { change.apply(to: &$0) }
    for box in released.boxes { box.withLock { change.apply(to: &$0) } }
  }

  /// What a step under the lock stops referring to or looks at, released after the lock: the readers' values, the
  /// prefixes of the readers dropped, and a key that left the counts (keys hold the app's values).
  private struct Released {
    var boxes: [ReactiveBox<QueryActivity>] = []
    var prefixes: [QueryKey] = []
    var key: QueryKey?
  }

  /// Adds `delta` to the count of `key`, which leaves the table at zero: one lookup of the key either way. Returns
  /// the key the table kept, once it leaves, to release after the lock.
  private static func count(_ key: QueryKey, by delta: Int, in counts: inout [QueryKey: Int]) -> QueryKey? {
    guard delta < 0 else {
      counts[key, default: 0] += delta
      return nil
    }
    guard let index = counts.index(forKey: key) else { return nil }
    guard counts.values[index] + delta <= 0 else {
      counts.values[index] += delta
      return nil
    }
    return counts.remove(at: index).key
  }
}
