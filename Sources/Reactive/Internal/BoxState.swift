import Observation
import Synchronization

/// Everything a ``ReactiveBox`` keeps under its lock, and the decisions made under it.
///
/// Methods here only decide: they never resume a continuation or call an observer. They return what must be done,
/// and the box does it after unlocking. What only matters once someone listens lives in ``Listeners``, made on the
/// first subscription or observer, so a box nobody listens to stays small.
@usableFromInline
struct BoxState<Value: Sendable> {
  @usableFromInline var value: Value
  @usableFromInline var version: UInt64 = 0
  /// Whether a change must be delivered to anyone: `true` while there is a subscriber or an observer.
  @usableFromInline var hasListeners = false
  @usableFromInline var isFinished = false
  @usableFromInline var listeners: Listeners<Value>?
  /// Whether Observation tracks the box, and its registrars.
  @usableFromInline var observation = ObservationState.untracked

  /// The state of a new box holding `value`, tracked from the start through `registrar` if there is one.
  @inlinable
  init(value: Value, registrar: RegistrarHolder? = nil) {
    self.value = value
    if let registrar { observation = .tracked(registrar: registrar, kept: []) }
  }

  /// The listeners, made on first use.
  @inlinable
  mutating func makeListeners() -> Listeners<Value> {
    if let listeners { return listeners }
    let made = Listeners<Value>()
    listeners = made
    return made
  }

  @inlinable
  mutating func refreshListeners() {
    // Not `Optional.map`: in code not specialized for `Value` (a query's fetch), the generic call and its
    // metadata cost more than the rest of a write.
    if let listeners {
      hasListeners = !listeners.subscribers.isEmpty || !listeners.observers.isEmpty
    } else {
      hasListeners = false
    }
  }

  // MARK: Changes

  /// Records the change just made to ``value`` for every subscriber and observer.
  ///
  /// Kept out of line (but specialized) so the write path it branches from stays small enough to inline.
  @inlinable
  @inline(never)
  mutating func didChange() -> ChangeDelivery<Value> {
    var delivery = ChangeDelivery(value: value)
    listeners?.didChange(value, version: version, isFinished: isFinished, into: &delivery)
    return delivery
  }

  /// Hands the delivering thread the next queued change and the observers to call (those registered before the
  /// change), or ends its turn.
  @inlinable
  mutating func nextObserverRound() -> ObserverRound<Value> {
    makeListeners().nextObserverRound()
  }

  // MARK: Subscribers

  /// Registers a subscriber whose first value is the current one.
  @inlinable
  mutating func subscribe(limit: Int) -> SlotHandle {
    let subscriber = Subscriber<Value>(limit: limit, value: value, version: version, isFinished: isFinished)
    let handle = makeListeners().subscribers.insert(subscriber)
    refreshListeners()
    return handle
  }

  /// What a consumer's `next()` gets without waiting.
  @usableFromInline
  enum NextStep {
    case value(Value)
    /// The iteration ended; the removed subscriber is released by the caller, after the lock.
    case end(Subscriber<Value>?)
    case wait
  }

  /// Takes the subscriber's next value, or says that it has ended or must wait.
  @inlinable
  mutating func next(_ handle: SlotHandle) -> NextStep {
    guard let listeners else { return .end(nil) }
    let isFinished = self.isFinished
    let version = self.version
    let step: NextStep? = listeners.subscribers.withElement(handle) { subscriber in
      // Once the box has finished, a subscriber's last values are in its buffer (see `finish()`).
      if !isFinished && subscriber.hasNewerValue(than: version) {
        subscriber.takenVersion = version
        return .value(self.value)
      }
      if let value = subscriber.buffer.popFirst() { return .value(value) }
      return isFinished ? .end(nil) : .wait
    }
    switch step {
    case .value(let value): return .value(value)
    case .wait: return .wait
    case .end, nil:
      let removed = listeners.subscribers.remove(handle)
      refreshListeners()
      // Only the subscriber's own task parks on it, and that task is here, not waiting.
      assert(removed?.waiter == nil, "a subscriber ended while its consumer was waiting")
      return .end(removed)
    }
  }

  /// Moves every value the subscriber has buffered into `batch`, which must be empty, and returns whether there
  /// were any.
  ///
  /// The two buffers trade places: the subscriber keeps `batch`'s storage for its next values, so a consumer that
  /// takes batches of about the same size makes no allocation under the lock, and touches no new memory there.
  @inlinable
  mutating func takeAll(_ handle: SlotHandle, into batch: inout RingBuffer<Value>) -> Bool {
    assert(batch.isEmpty, "a batch was traded before its consumer took every value")
    return listeners?.subscribers.withElement(handle) { subscriber in
      guard !subscriber.buffer.isEmpty else { return false }
      swap(&batch, &subscriber.buffer)
      return true
    } ?? false
  }

  /// Parks `waiter` until the next change, unless a value or the end is already there (then returns that step).
  @inlinable
  mutating func wait(_ handle: SlotHandle, _ waiter: UnsafeContinuation<Value?, Never>) -> NextStep? {
    let step = next(handle)
    guard case .wait = step else { return step }
    listeners?.subscribers.withElement(handle) { $0.waiter = waiter }
    return nil
  }

  /// Removes a subscriber and returns it; its waiting consumer, if any, must be resumed with `nil`, and the
  /// subscriber released, after the lock.
  @inlinable
  mutating func unsubscribe(_ handle: SlotHandle) -> Subscriber<Value>? {
    let removed = listeners?.subscribers.remove(handle)
    refreshListeners()
    return removed
  }

  /// Ends every iteration: waiting consumers are returned to be resumed with `nil`; the others end after
  /// taking what they have buffered. A subscriber that keeps only the newest value and has not taken it gets it
  /// in its buffer, since the box's later changes are not the iteration's.
  @inlinable
  mutating func finish() -> [UnsafeContinuation<Value?, Never>] {
    var waiters: [UnsafeContinuation<Value?, Never>] = []
    if !isFinished {
      let version = self.version
      let value = self.value
      listeners?.subscribers.updateEach { subscriber in
        if let waiter = subscriber.waiter {
          subscriber.waiter = nil
          waiters.append(waiter)
        } else if subscriber.hasNewerValue(than: version) {
          subscriber.takenVersion = version
          subscriber.buffer.append(value, limit: subscriber.limit)
        }
      }
    }
    isFinished = true
    return waiters
  }

  @inlinable
  var subscriberCount: Int { listeners?.subscribers.count ?? 0 }

  @inlinable
  var observerCount: Int { listeners?.observers.count ?? 0 }

  // MARK: Observers

  @inlinable
  mutating func addObserver(_ entry: (UInt64) -> ObserverEntry<Value>) -> UInt64 {
    let listeners = makeListeners()
    listeners.nextObserverID += 1
    listeners.observers.append(entry(listeners.nextObserverID))
    refreshListeners()
    return listeners.nextObserverID
  }

  /// Removes an observer and returns it, to be released after the lock: its closure may own things whose deinit
  /// uses this box.
  @inlinable
  mutating func removeObserver(_ id: UInt64) -> ObserverEntry<Value>? {
    let removed = listeners?.removeObserver(id)
    refreshListeners()
    return removed
  }
}
