/// The focus sources a store follows (``QueryStore/refetch(onFocus:matching:)``), each with the prefix it was
/// followed for: what an interval's tick asks to know whether the app is in the background for a query.
///
/// Its list is only touched under its own lock; the sources are read after it, as they are the program's code.
final class QueryFocusSources: Sendable {
  private struct Followed: Sendable {
    let source: any FocusSource
    let prefix: QueryKey
  }

  private let followed = Lock<(next: UInt64, sources: [UInt64: Followed])>((0, [:]))

  /// Follows `source` for the queries under `prefix`; returns the identifier that ``forget(_:)`` takes.
  func follow(_ source: some FocusSource, matching prefix: QueryKey) -> UInt64 {
    followed.withLock { followed in
      followed.next += 1
      followed.sources[followed.next] = Followed(source: source, prefix: prefix)
      return followed.next
    }
  }

  /// Stops following the source `id` (its subscription was cancelled or freed).
  func forget(_ id: UInt64) {
    // The source is released after the lock.
    let forgotten = followed.withLock { $0.sources.removeValue(forKey: id) }
    _ = forgotten
  }

  /// The prefixes of the sources that say the app is inactive now, read after the lock; empty when none does, or
  /// the store follows no source (the app then counts as active).
  func backgroundPrefixes() -> [QueryKey] {
    let sources = followed.withLock { Array($0.sources.values) }
    return sources.filter { !$0.source.isFocused }.map(\.prefix)
  }
}
