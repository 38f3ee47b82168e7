/// What the records of one query definition share: the options, the code location of the fetcher and the clock, kept
/// once for every key that the same code queries with the same options.
///
/// A cached query keeps a reference to it rather than a copy of its options: an app caches thousands of keys
/// (`["posts", id]`) from a handful of definitions. Immutable, so it is read without a lock.
final class QueryDefinition: Sendable {
  /// How the query caches, refetches and retries.
  let options: QueryOptions
  /// Whether the query was made without options of its own (see ``Query/usesDefaultOptions``).
  let usesDefaultOptions: Bool
  /// Where the fetcher is written.
  let fetcherLocation: CodeLocation
  /// The clock the query measures its time on.
  let clockKey: QueryClockKey
  /// The query's staleness rule (a `QueryStaleness` of its state type), if it has one.
  let staleness: (any AnyObject & Sendable)?

  init(
    options: QueryOptions,
    usesDefaultOptions: Bool,
    fetcherLocation: CodeLocation,
    staleness: (any AnyObject & Sendable)? = nil
  ) {
    self.options = options
    self.usesDefaultOptions = usesDefaultOptions
    self.fetcherLocation = fetcherLocation
    self.clockKey = QueryClockKey(options.operation.clock)
    self.staleness = staleness
  }

  /// Whether a query made at `fetcherLocation` with `options` may share this definition: the same location and the
  /// same options (see ``QueryOptions/isIdentical(to:)``), and the same staleness rule (the same instance, or none).
  func fits<State>(_ query: Query<State>) -> Bool {
    fetcherLocation == query.fetcherLocation && usesDefaultOptions == query.usesDefaultOptions
      && staleness === query.staleness && options.isIdentical(to: query.options)
  }
}

/// The definitions of a store's queries, by the code location of their fetchers, so that the records of one
/// definition share one ``QueryDefinition``.
///
/// Holds each weakly: a definition lives as long as a record uses it. Only touched under the store's lock.
struct QueryDefinitions: ~Copyable {
  private struct Entry {
    weak var definition: QueryDefinition?
  }

  private var entries: [CodeLocation: Entry] = [:]
  /// The count at which entries whose definition is gone are next dropped.
  private var pruneCount = 64
  /// The definition given last: holders of many keys made at one place ask for it in a row, and comparing it costs
  /// less than hashing the location. Weak, as the entries are.
  private weak var last: QueryDefinition?

  /// The definition of `query`: the last one made at its fetcher's location if it fits, otherwise a new one.
  mutating func definition<State>(of query: Query<State>) -> QueryDefinition {
    if let last, last.fits(query) { return last }
    if let known = entries[query.fetcherLocation]?.definition, known.fits(query) {
      last = known
      return known
    }
    let made = QueryDefinition(
      options: query.options, usesDefaultOptions: query.usesDefaultOptions, fetcherLocation: query.fetcherLocation,
      staleness: query.staleness)
    entries[query.fetcherLocation] = Entry(definition: made)
    last = made
    if entries.count >= pruneCount {
      entries = entries.filter { $0.value.definition != nil }
      pruneCount = max(64, entries.count * 2)
    }
    return made
  }
}

extension QueryOptions {
  /// Whether both are the same options, as far as can be told without calling them: equal durations and flags, the
  /// same clock (the same instance, or the same stateless clock type), the same retry closures and the same
  /// modifiers (one array). Options copied from one value are identical; options built twice may not be.
  func isIdentical(to other: QueryOptions) -> Bool {
    staleTime == other.staleTime && gcTime == other.gcTime && isEnabled == other.isEnabled
      && refetchOnHolder == other.refetchOnHolder && refetchOnReconnect == other.refetchOnReconnect
      && refetchOnFocus == other.refetchOnFocus && refetchInterval == other.refetchInterval
      && refetchesWhileUnheld == other.refetchesWhileUnheld
      && refetchIntervalInBackground == other.refetchIntervalInBackground
      && structuralSharing == other.structuralSharing
      && operation.timeout == other.operation.timeout && operation.networkMode == other.operation.networkMode
      && operation.retry.isIdentical(to: other.operation.retry) && operation.meta.isIdentical(to: other.operation.meta)
      && isSameClock(operation.clock, other.operation.clock)
      && isSameArray(operation.modifiers, other.operation.modifiers)
  }
}

/// Whether two clocks are one: the same instance of a clock that is an object, or two values of a clock type that
/// keeps no state (`ContinuousClock`, `SuspendingClock`).
private func isSameClock(_ lhs: any Clock<Duration>, _ rhs: any Clock<Duration>) -> Bool {
  let type = type(of: lhs)
  guard type == Swift.type(of: rhs) else { return false }
  // The stateless clocks first: every query's default needs no check of whether its type is a class.
  if type == ContinuousClock.self || type == SuspendingClock.self { return true }
  guard type is AnyClass else { return false }
  return (lhs as AnyObject) === (rhs as AnyObject)
}

/// Whether two arrays are both empty or share one buffer.
private func isSameArray<Element>(_ lhs: [Element], _ rhs: [Element]) -> Bool {
  guard lhs.count == rhs.count else { return false }
  if lhs.isEmpty { return true }
  return lhs.withUnsafeBufferPointer { left in rhs.withUnsafeBufferPointer { left.baseAddress == $0.baseAddress } }
}
