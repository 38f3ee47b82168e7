/// How a ``ReactiveBox/Values`` iteration buffers changes that arrive faster than its consumer takes them.
///
/// Every iteration has its own buffer, so a slow consumer never slows down the box or another consumer.
///
/// ```swift
/// for await value in box.values(buffering: .all) {
///   log(value)  // every change, in order
/// }
/// ```
public enum BufferingPolicy: Sendable, Hashable {
  /// Keeps only the newest change.
  ///
  /// A slow consumer skips intermediate values, but the last value it receives is always the newest one.
  /// This is the default, and the right choice for anything that renders state.
  case latest

  /// Keeps every change, in order, and never drops one.
  ///
  /// > Important: Memory grows with every change the consumer has not taken yet. A consumer that stops
  /// > taking values while the box keeps changing holds every one of those values.
  case all

  /// Keeps the newest `limit` changes, dropping the oldest when a new one arrives and the buffer is full.
  ///
  /// `limit` must be at least 1; `.bounded(1)` behaves like ``latest``.
  case bounded(Int)

  /// The number of values the buffer may hold; `Int.max` for ``all``.
  @usableFromInline
  var limit: Int {
    switch self {
    case .latest: return 1
    case .all: return Int.max
    case .bounded(let limit):
      precondition(problem == nil, problem ?? "")
      return limit
    }
  }

  /// What is wrong with this policy, or `nil` when nothing is.
  var problem: String? {
    if case .bounded(let limit) = self, limit < 1 {
      return "BufferingPolicy.bounded(\(limit)) needs a limit of at least 1"
    }
    return nil
  }
}
