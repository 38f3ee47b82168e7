public import Synchronization

/// Everything a ``ReactiveBox`` keeps under its lock, and the decisions made under it.
///
/// Methods here only decide: they never resume a continuation or call an observer. They return what must be done,
/// and the box does it after unlocking.
@usableFromInline
struct BoxState<Value: Sendable>: Sendable {
  @usableFromInline var value: Value
  @usableFromInline var version: UInt64 = 0
  /// Whether a change must be delivered to anyone: `true` while there is a subscriber or an observer.
  @usableFromInline var hasListeners = false
  @usableFromInline var subscribers = SlotTable<Subscriber<Value>>()
  @usableFromInline var observers: [ObserverEntry<Value>] = []
  @usableFromInline var nextObserverID: UInt64 = 0
  /// Changes waiting for the observers while one thread delivers an earlier change to them.
  @usableFromInline var pendingObserverValues = RingBuffer<Value>()
  @usableFromInline var isDeliveringToObservers = false
  @usableFromInline var isFinished = false

  @inlinable
  init(value: Value) {
    self.value = value
  }

  @inlinable
  mutating func refreshListeners() {
    hasListeners = !subscribers.isEmpty || !observers.isEmpty
  }

  // MARK: Changes

  /// Records the change just made to ``value`` for every subscriber and observer.
  @inlinable
  mutating func didChange() -> ChangeDelivery<Value> {
    var delivery = ChangeDelivery(value: value)
    if !isFinished && !subscribers.isEmpty {
      let value = self.value
      subscribers.updateEach { subscriber in
        if let waiter = subscriber.waiter {
          subscriber.waiter = nil
          delivery.waiters.append(waiter)
        } else {
          subscriber.buffer.append(value, limit: subscriber.limit)
        }
      }
    }
    if !observers.isEmpty {
      if isDeliveringToObservers {
        pendingObserverValues.append(value, limit: .max)
      } else {
        isDeliveringToObservers = true
        delivery.observers = observers
      }
    }
    return delivery
  }

  /// Hands the delivering thread the next queued change and the observers to call, or ends its turn.
  @inlinable
  mutating func nextObserverRound() -> (observers: [ObserverEntry<Value>], value: Value)? {
    if !observers.isEmpty, let value = pendingObserverValues.popFirst() {
      return (observers, value)
    }
    pendingObserverValues.removeAll()
    isDeliveringToObservers = false
    return nil
  }

  // MARK: Subscribers

  /// Registers a subscriber whose first value is the current one.
  @inlinable
  mutating func subscribe(limit: Int) -> SlotHandle {
    var subscriber = Subscriber<Value>(limit: limit)
    subscriber.buffer.append(value, limit: limit)
    let handle = subscribers.insert(subscriber)
    refreshListeners()
    return handle
  }

  /// What a consumer's `next()` gets without waiting.
  @usableFromInline
  enum NextStep {
    case value(Value)
    case end
    case wait
  }

  /// Takes the subscriber's next value, or says that it has ended or must wait.
  @inlinable
  mutating func next(_ handle: SlotHandle) -> NextStep {
    let isFinished = self.isFinished
    let step: NextStep? = subscribers.withElement(handle) { subscriber in
      if let value = subscriber.buffer.popFirst() { return .value(value) }
      return isFinished ? .end : .wait
    }
    switch step {
    case .value(let value): return .value(value)
    case .wait: return .wait
    case .end, nil:
      unsubscribe(handle)
      return .end
    }
  }

  /// Takes every value the subscriber has buffered.
  @inlinable
  mutating func takeAll(_ handle: SlotHandle) -> RingBuffer<Value>? {
    subscribers.withElement(handle) { subscriber in
      guard !subscriber.buffer.isEmpty else { return nil }
      var taken = RingBuffer<Value>()
      swap(&taken, &subscriber.buffer)
      return taken
    } ?? nil
  }

  /// Parks `waiter` until the next change, unless a value or the end is already there.
  @inlinable
  mutating func wait(_ handle: SlotHandle, _ waiter: UnsafeContinuation<Value?, Never>) -> Value?? {
    switch next(handle) {
    case .value(let value): return .some(value)
    case .end: return .some(nil)
    case .wait:
      subscribers.withElement(handle) { $0.waiter = waiter }
      return nil
    }
  }

  /// Removes a subscriber and returns its waiting consumer, which must be resumed with `nil`.
  @inlinable
  @discardableResult
  mutating func unsubscribe(_ handle: SlotHandle) -> UnsafeContinuation<Value?, Never>? {
    let removed = subscribers.remove(handle)
    refreshListeners()
    return removed?.waiter
  }

  /// Ends every iteration: waiting consumers are returned to be resumed with `nil`; the others end after
  /// taking what they have buffered.
  @inlinable
  mutating func finish() -> [UnsafeContinuation<Value?, Never>] {
    isFinished = true
    var waiters: [UnsafeContinuation<Value?, Never>] = []
    subscribers.updateEach { subscriber in
      if let waiter = subscriber.waiter {
        subscriber.waiter = nil
        waiters.append(waiter)
      }
    }
    return waiters
  }

  @inlinable
  var subscriberCount: Int { subscribers.count }

  // MARK: Observers

  @inlinable
  mutating func addObserver(_ entry: (UInt64) -> ObserverEntry<Value>) -> UInt64 {
    nextObserverID += 1
    observers.append(entry(nextObserverID))
    refreshListeners()
    return nextObserverID
  }

  @inlinable
  mutating func removeObserver(_ id: UInt64) {
    // Identifiers only grow, so the array is sorted by them.
    var low = 0
    var high = observers.count
    while low < high {
      let middle = (low + high) / 2
      if observers[middle].id < id { low = middle + 1 } else { high = middle }
    }
    if low < observers.count && observers[low].id == id {
      observers.remove(at: low)
      refreshListeners()
    }
  }
}

/// One consumer of ``ReactiveBox/Values``: its pending values and, while it waits, its continuation.
@usableFromInline
struct Subscriber<Value: Sendable>: Sendable {
  @usableFromInline var buffer = RingBuffer<Value>()
  @usableFromInline let limit: Int
  @usableFromInline var waiter: UnsafeContinuation<Value?, Never>?

  @inlinable
  init(limit: Int) {
    self.limit = limit
  }
}

/// One registered observer.
@usableFromInline
struct ObserverEntry<Value: Sendable>: Sendable {
  @usableFromInline let id: UInt64
  @usableFromInline let callback: @Sendable (Value) -> Void
  @usableFromInline let cancellation: ObserverCancellation

  @inlinable
  init(id: UInt64, callback: @escaping @Sendable (Value) -> Void, cancellation: ObserverCancellation) {
    self.id = id
    self.callback = callback
    self.cancellation = cancellation
  }
}

/// Set when an observer is cancelled, so a delivery already under way skips it.
@usableFromInline
final class ObserverCancellation: Sendable {
  @usableFromInline let isCancelled = Atomic<Bool>(false)

  @inlinable
  init() {}
}

/// What a change must do once the lock is released.
@usableFromInline
struct ChangeDelivery<Value: Sendable>: Sendable {
  /// Consumers waiting for the next value: each is resumed with ``value``.
  @usableFromInline var waiters: [UnsafeContinuation<Value?, Never>] = []
  /// The observers this thread must call, or `nil` when there are none or another thread is calling them.
  @usableFromInline var observers: [ObserverEntry<Value>]?
  @usableFromInline let value: Value

  @inlinable
  init(value: Value) {
    self.value = value
  }
}
