import Reactive

/// Holds one shared value at a time and moves to another with ``load(_:)-(Shared<Value>)``, showing the value it held
/// before until the new one has loaded: a settings screen that switches users, a document view that opens another
/// file. Any key: a file, a store of your own, an in-memory value, a query.
///
/// ```swift
/// final class AccountModel: Sendable {
///   let settings: SharedKeyHolder<Settings>
///
///   init(user: String, folder: URL) {
///     settings = SharedKeyHolder(
///       Shared(wrappedValue: Settings(), .fileStorage(folder.appending(path: "\(user).json"))))
///   }
///
///   func switchTo(user: String, folder: URL) {
///     settings.load(Shared(wrappedValue: Settings(), .fileStorage(folder.appending(path: "\(user).json"))))
///   }
/// }
/// ```
///
/// A `@Shared` property holds one key for its life (its copies share that key, and reading it costs no more than a
/// lock); a model whose key changes holds a `SharedKeyHolder` instead, as ``QueryHolder`` does for queries. Each
/// ``load(_:)-(Shared<Value>)`` holds the new value and lets go of the previous one; ``shown`` follows the new value
/// at once if its key has loaded (or loads synchronously), and otherwise keeps the previous value, with
/// ``ShownValue/isPlaceholder`` set, until the new key's load ends (with its value, or with ``ShownValue/loadError``).
/// The previous value is never written into the new key's value. A query's key loads nothing: its value counts as
/// loading while it is an operation's state in its first load (``OperationStatus/pending``), so the previous query's
/// value shows until the new query's first fetch ends (``QueryHolder`` does the same, and adds placeholders).
public final class SharedKeyHolder<Value: Sendable>: Sendable {
  private struct State: ~Copyable {
    /// Grows with each load: an observer of an earlier value changes nothing.
    var generation: UInt64 = 0
    /// Grows with each decision: an older one is never written over a newer one.
    var sequence: UInt64 = 0
    var current: SharedReader<Value>
    var writable: Shared<Value>?
    var token: ObserverToken?
    /// The value shown last, to keep while a new key loads.
    var shown: Value
  }

  private let state: Lock<State>
  /// What shows; written after the lock, in the order of the decisions.
  private let output: Shared<ShownValue<Value>>
  /// The sequence of the last decision written into `output`, read and written under `output`'s lock.
  private let written = Lock<UInt64>(0)

  /// A holder of `shared`.
  ///
  /// - Parameter shared: The value to hold first.
  public init(_ shared: Shared<Value>) {
    state = Lock(State(current: SharedReader(shared), writable: shared, shown: shared.wrappedValue))
    output = Shared(value: ShownValue(shared.wrappedValue, isLoading: shared.isLoading, loadError: shared.loadError))
    follow(SharedReader(shared), writable: shared, generation: nil)
  }

  /// A holder of `reader`, a value of a key that only reads its store.
  ///
  /// - Parameter reader: The value to hold first.
  public init(_ reader: SharedReader<Value>) {
    state = Lock(State(current: reader, writable: nil, shown: reader.wrappedValue))
    output = Shared(value: ShownValue(reader.wrappedValue, isLoading: reader.isLoading, loadError: reader.loadError))
    follow(reader, writable: nil, generation: nil)
  }

  /// What shows: the held value, or the previous one (flagged) while the held key loads.
  ///
  /// ```swift
  /// let token = model.settings.shown.observe { shown in render(shown) }
  /// ```
  public var shown: SharedReader<ShownValue<Value>> {
    SharedReader(output)
  }

  /// The value held now, as its key's holders have it.
  public var current: SharedReader<Value> {
    state.withLock { $0.current }
  }

  /// The value held now, to write, when it was loaded from a ``Shared`` (not from a ``SharedReader``).
  public var writable: Shared<Value>? {
    state.withLock { $0.writable }
  }

  /// Moves to `shared`: holds it, lets go of the value held until now, and shows the new value once its key has
  /// loaded, keeping the previous value (flagged) until then.
  ///
  /// ```swift
  /// model.settings.load(Shared(wrappedValue: Settings(), .fileStorage(otherURL)))
  /// ```
  ///
  /// - Parameter shared: The value to hold.
  public func load(_ shared: Shared<Value>) {
    follow(SharedReader(shared), writable: shared, generation: advance(to: SharedReader(shared), writable: shared))
  }

  /// Moves to `reader`, a value of a key that only reads its store; as ``load(_:)-(Shared<Value>)``.
  ///
  /// - Parameter reader: The value to hold.
  public func load(_ reader: SharedReader<Value>) {
    follow(reader, writable: nil, generation: advance(to: reader, writable: nil))
  }

  /// Makes `reader` the held value; returns its generation.
  private func advance(to reader: SharedReader<Value>, writable: Shared<Value>?) -> UInt64 {
    typealias Left = (SharedReader<Value>, Shared<Value>?, ObserverToken?)
    // The value left and its observer are let go after the lock.
    return state.withLockReleasingAfter { state -> (result: UInt64, released: Left) in
      state.generation += 1
      defer {
        state.current = reader
        state.writable = writable
        state.token = nil
      }
      return (state.generation, (state.current, state.writable, state.token))
    }
  }

  /// Observes `reader`, the held value of `generation` (the first when `nil`), and shows it as it is now.
  private func follow(_ reader: SharedReader<Value>, writable: Shared<Value>?, generation: UInt64?) {
    let generation = generation ?? 0
    // Observed first, then read: no change (the end of a load included) falls between the two.
    let token = reader.observe { [weak self] _ in self?.changed(generation) }
    // A token for a generation that ended is let go after the lock.
    state.withLockReleasingAfter { state -> (result: Void, released: ObserverToken?) in
      guard state.generation == generation else { return ((), token) }
      state.token = token
      return ((), nil)
    }
    changed(generation)
  }

  /// The value of `generation` changed, or its load ended: shows it, or keeps the previous value while it loads.
  private func changed(_ generation: UInt64) {
    let decided = state.withLock { state -> (sequence: UInt64, shown: ShownValue<Value>, released: Value?)? in
      guard state.generation == generation else { return nil }
      state.sequence += 1
      let reader = state.current
      // A load that ended has told the value's listeners after it ended: read under this lock, in order.
      let loadError = reader.loadError
      let value = reader.wrappedValue
      // A query's key loads nothing: its value is loading while its first fetch runs.
      if reader.isLoading || Self.isFirstLoad(value) {
        return (state.sequence, ShownValue(state.shown, isPlaceholder: generation > 0, isLoading: true), value)
      }
      let released = state.shown
      state.shown = value
      return (state.sequence, ShownValue(value, isLoading: false, loadError: loadError), released)
    }
    guard let decided else { return }
    // The value read (or the one replaced) is released after the lock.
    withExtendedLifetime(decided.released) {}
    output.withLockReleasingReplaced { shown in
      self.written.withLock { last in
        guard decided.sequence > last else { return }
        last = decided.sequence
        shown = decided.shown
      }
    }
  }

  /// Whether `value` is an operation's state in its first load (``OperationStatus/pending``): a query's value
  /// while its first fetch runs.
  private static func isFirstLoad(_ value: Value) -> Bool {
    (value as? any OperationTrackable)?.operation.status == .pending
  }
}
