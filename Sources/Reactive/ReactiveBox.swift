public import Observation
public import Synchronization

/// A reference to one value that many parts of a program share, read and change.
///
/// A box holds its value under a lock. Reads and writes are synchronous and cheap, and every change is
/// announced, after the lock is released, to three kinds of listeners:
///
/// - iterations of ``values`` (a multicast `AsyncSequence` whose first element is the current value),
/// - observers registered with ``observe(_:)``,
/// - Apple's Observation (`withObservationTracking`, `Observations`, SwiftUI), once it has read the box. It is
///   told (`willSet`, then `didSet`) after the new value is stored, so a tracker that reads the box when told
///   reads the new value. A freed box ends every tracking registered with it, silently, like an `@Observable`
///   object.
///
/// ```swift
/// let counter = ReactiveBox(0)
/// let token = counter.observe { print("now", $0) }
/// counter.withLock { $0 += 1 }     // prints "now 1"
/// print(counter.value)             // 1
/// token.cancel()
/// ```
///
/// > Important: No listener is ever called while the lock is held. A listener may read, change, observe or
/// > stop observing the same box from inside its callback.
public final class ReactiveBox<Value: Sendable>: Sendable {
  @usableFromInline
  let state: Lock<BoxState<Value>>
  /// The box's own registrar once Observation has tracked the box, so that reads and writes go through it; see
  /// ``ObservationProbe``.
  @usableFromInline
  let ownRegistrar: PublishedRegistrar
  @usableFromInline
  let probe = ObservationProbe.shared
  // Key paths are immutable once made, and this one captures only the probe's marker, which is Sendable; `KeyPath`
  // simply does not declare the conformance.
  @usableFromInline
  nonisolated(unsafe) let observationKeyPath: KeyPath<ReactiveBox, Value>

  /// Creates a box holding `value`.
  ///
  /// - Parameter value: The initial value.
  @inlinable
  public init(_ value: Value) {
    // Where a tracked read cannot be told apart, the box has a registrar from the start.
    let registrar = ObservationProbe.trackingIsDetectable ? nil : RegistrarHolder()
    self.ownRegistrar = PublishedRegistrar(registrar)
    self.observationKeyPath = ObservationProbe.keyPath(for: ReactiveBox.self)
    self.state = Lock(BoxState(value: value, registrar: registrar))
  }

  /// The current value.
  ///
  /// Reading is synchronous: it takes the lock, copies the value and releases the lock. Inside
  /// `withObservationTracking` a read registers the box, so its next change reports to the tracker.
  @inlinable
  public var value: Value {
    if ownRegistrar.isPublished { return registeredRead() }
    if let read = probe.accessThroughSpare(self, keyPath: observationKeyPath) {
      return trackedRead(through: probe.takeSpare(read))
    }
    return state.withLock { $0.value }
  }

  /// A read of a box that Observation has tracked: through its own registrar, which never changes once published.
  @inlinable
  func registeredRead() -> Value {
    // The box's state holds the registrar for as long as the box lives.
    ownRegistrar.holder.unsafelyUnwrapped._withUnsafeGuaranteedRef {
      $0.registrar.access(self, keyPath: observationKeyPath)
    }
    return state.withLock { $0.value }
  }

  /// A read that Observation tracked before the box had a registrar published, through the thread's `spare`
  /// registrar: the box keeps the spare (as its registrar if it has none yet), so that what the tracking registers
  /// with it ends with the box, and registers the read with its registrar.
  @usableFromInline
  func trackedRead(through spare: RegistrarHolder) -> Value {
    let (value, action) = state.withLock { state in
      let action = state.observation.trackedRead(through: spare)
      // Under the lock, so that a write that takes the lock after this read also finds the registrar.
      switch action {
      case .register(let holder): ownRegistrar.publish(holder)
      }
      return (state.value, action)
    }
    switch action {
    case .register(let holder): holder.registrar.access(self, keyPath: observationKeyPath)
    }
    return value
  }

  /// Whether Observation has tracked the box, so that its reads and changes go through its own registrar.
  var isTracked: Bool {
    ownRegistrar.isPublished
  }

  /// A number that grows by one with every call of ``withLock(_:)``.
  ///
  /// Two reads that return the same version saw the same value.
  @inlinable
  public var version: UInt64 {
    state.withLock { $0.version }
  }

  /// Changes the value in place under the lock, then tells every listener once.
  ///
  /// The body gets the stored value `inout`, so large values are changed without a copy. After the body returns
  /// the version grows by one, the lock is released, and only then are listeners told. Every call counts as one
  /// change, whether or not the body wrote anything.
  ///
  /// ```swift
  /// let total = cart.withLock { cart in
  ///   cart.items.append(item)
  ///   return cart.items.count
  /// }
  /// ```
  ///
  /// If the body throws, whatever it wrote before throwing stays: the call still counts as a change, listeners
  /// are told, and then the error is rethrown. To make a write all-or-nothing, compute the new value first and
  /// assign it last.
  ///
  /// > Important: Do not call `withLock` of the same box inside the body: the lock is not reentrant. Listeners,
  /// > which run after the lock is released, may. For the same reason, a value the body overwrites is released
  /// > under the lock, so a value whose `deinit` uses this same box must not be overwritten inside the body.
  ///
  /// - Parameter body: Reads and changes the value; runs exactly once, under the lock.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @inlinable
  public func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    var outcome: Swift.Result<Result, Failure>?
    let delivery = state.withLock { state -> ChangeDelivery<Value>? in
      do throws(Failure) {
        outcome = .success(try body(&state.value))
      } catch {
        outcome = .failure(error)
      }
      state.version &+= 1
      return state.hasListeners ? state.didChange() : nil
    }
    if let delivery { deliver(delivery) }
    // Observation hears of the change only now that it is made: a tracker that re-reads the box as soon as it is
    // told (an `Observations` consumer on another thread) reads the new value, and what it tracks next is the
    // change after this one. A read that made the box tracked after this change took the lock saw the new value.
    if ownRegistrar.isPublished { trackedChanged() }
    return try outcome.unsafelyUnwrapped.get()
  }

  /// Ends every iteration of ``values``.
  ///
  /// A consumer waiting for a value gets the end of its sequence at once; one that has values buffered gets
  /// them first. An iteration started after `finish()` yields the current value and then ends. The box stays
  /// readable and writable, and observers keep being called.
  public func finish() {
    let waiters = state.withLock { $0.finish() }
    for waiter in waiters { waiter.resume(returning: nil) }
  }

  /// The object of type `T` kept with this box, made by `make` the first time it is asked for.
  ///
  /// Lets the layers built on the box keep per-value state (such as an operation runner) without a table of
  /// their own. `make` runs under the lock, so it must only build the object.
  @inlinable
  package func attachment<T: AnyObject & Sendable>(_ type: T.Type, make: () -> T) -> T {
    state.withLock { state in
      let listeners = state.makeListeners()
      let key = ObjectIdentifier(type)
      guard let first = listeners.firstAttachment else {
        let made = make()
        listeners.firstAttachment = (key, made)
        return made
      }
      if first.type == key { return unsafeDowncast(first.object, to: T.self) }
      if let existing = listeners.attachments[key] { return unsafeDowncast(existing, to: T.self) }
      let made = make()
      listeners.attachments[key] = made
      return made
    }
  }

  /// Changes the value under the lock, as ``withLock(_:)`` does, handing `body` the object of type `T` kept with
  /// this box (``attachment(_:make:)``), if there is one, in the same critical section: state that must change
  /// together with the value lives there.
  ///
  /// The body runs under the lock, so it must only compute and write.
  @inlinable
  package func withLock<T: AnyObject & Sendable, Result>(
    attached type: T.Type,
    _ body: (inout Value, T?) -> Result
  ) -> Result {
    var result: Result?
    let delivery = state.withLock { state -> ChangeDelivery<Value>? in
      result = body(&state.value, state.listeners?.attachment(ObjectIdentifier(type), as: T.self))
      state.version &+= 1
      return state.hasListeners ? state.didChange() : nil
    }
    if let delivery { deliver(delivery) }
    if ownRegistrar.isPublished { trackedChanged() }
    return result.unsafelyUnwrapped
  }

  /// ``withLock(attached:_:)`` for a body that lets something go (a value it replaced, a change it dropped): what it
  /// returns as `released` is released after the lock, so nothing of a program's is released under it.
  @inlinable
  package func withLockReleasingAfter<T: AnyObject & Sendable, Result, Released>(
    attached type: T.Type,
    _ body: (inout Value, T?) -> (result: Result, released: Released)
  ) -> Result {
    let (result, released) = withLock(attached: type, body)
    withExtendedLifetime(released) {}  // After the lock.
    return result
  }

  /// ``withLock(attached:_:)`` for a body that throws: the call still counts as a change (as for ``withLock(_:)``),
  /// and the error is rethrown.
  @inlinable
  package func withLockThrowing<T: AnyObject & Sendable, Result, Failure: Error>(
    attached type: T.Type,
    _ body: (inout Value, T?) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    var outcome: Swift.Result<Result, Failure>?
    let delivery = state.withLock { state -> ChangeDelivery<Value>? in
      do throws(Failure) {
        outcome = .success(try body(&state.value, state.listeners?.attachment(ObjectIdentifier(type), as: T.self)))
      } catch {
        outcome = .failure(error)
      }
      state.version &+= 1
      return state.hasListeners ? state.didChange() : nil
    }
    if let delivery { deliver(delivery) }
    if ownRegistrar.isPublished { trackedChanged() }
    return try outcome.unsafelyUnwrapped.get()
  }

  /// Changes the value as ``withLock(attached:_:)`` does, but only while the box's version is still `expected`: a
  /// check and a write in one critical section, so no change made in between is overwritten.
  ///
  /// The body runs under the lock, so it must only compute and write.
  ///
  /// - Returns: What `body` returned and the version after the change, or `nil` (nothing changed, nobody told) when
  ///   the box changed since `expected`.
  @inlinable
  package func withLock<T: AnyObject & Sendable, Result>(
    attached type: T.Type,
    ifVersion expected: UInt64,
    _ body: (inout Value, T?) -> Result
  ) -> (result: Result, version: UInt64)? {
    var result: (result: Result, version: UInt64)?
    let delivery = state.withLock { state -> ChangeDelivery<Value>? in
      guard state.version == expected else { return nil }
      let returned = body(&state.value, state.listeners?.attachment(ObjectIdentifier(type), as: T.self))
      state.version &+= 1
      result = (returned, state.version)
      return state.hasListeners ? state.didChange() : nil
    }
    guard let result else { return nil }
    if let delivery { deliver(delivery) }
    if ownRegistrar.isPublished { trackedChanged() }
    return result
  }

  /// The value and its version, read in one critical section.
  @inlinable
  package var versionedValue: (value: Value, version: UInt64) {
    state.withLock { ($0.value, $0.version) }
  }

  /// Runs `body` with the value and the object of type `T` kept with this box (``attachment(_:make:)``), if there
  /// is one, in one critical section, without changing the value: nothing is told to listeners.
  ///
  /// The body runs under the lock, so it must only compute and write.
  @inlinable
  package func withValue<T: AnyObject & Sendable, Result>(attached type: T.Type, _ body: (Value, T?) -> Result)
    -> Result
  {
    state.withLock { state in body(state.value, state.listeners?.attachment(ObjectIdentifier(type), as: T.self)) }
  }

  /// Runs `body` with the object of type `T` kept with this box, if there is one, under the lock, without
  /// changing the value: nothing is told to listeners.
  ///
  /// The body runs under the lock, so it must only compute and write.
  @inlinable
  package func withAttachment<T: AnyObject & Sendable, Result>(_ type: T.Type, _ body: (T?) -> Result) -> Result {
    state.withLock { state in body(state.listeners?.attachment(ObjectIdentifier(type), as: T.self)) }
  }

  /// ``withAttachment(_:_:)`` for a body that lets something go: what it returns as `released` is released after the
  /// lock.
  @inlinable
  package func withAttachmentReleasingAfter<T: AnyObject & Sendable, Result, Released>(
    _ type: T.Type,
    _ body: (T?) -> (result: Result, released: Released)
  ) -> Result {
    let (result, released) = withAttachment(type, body)
    withExtendedLifetime(released) {}  // After the lock.
    return result
  }

  /// The number of iterations of ``values`` currently registered.
  public var subscriberCount: Int {
    state.withLock { $0.subscriberCount }
  }

  /// The number of observers currently registered with ``observe(_:)``.
  public var observerCount: Int {
    state.withLock { $0.observerCount }
  }

  /// The number of iterations parked until the next change; lets tests wait for a consumer to be waiting.
  var waitingSubscriberCount: Int {
    state.withLock { state in
      var waiting = 0
      state.listeners?.subscribers.updateEach { if $0.waiter != nil { waiting += 1 } }
      return waiting
    }
  }

  // MARK: Delivery

  @inlinable
  @inline(never)
  func deliver(_ delivery: consuming ChangeDelivery<Value>) {
    for waiter in delivery.waiters {
      waiter.resume(returning: delivery.value)
    }
    if let observers = delivery.observers {
      callObservers(observers, with: delivery.value)
    }
  }

  /// How many queued changes a writer delivers to observers for other writers before a task takes over, so a
  /// `withLock` call never waits long for changes that are not its own.
  @usableFromInline
  static var queuedRoundsPerWriter: Int { 16 }

  /// Calls the observers with `value`, then with changes queued meanwhile, until none is left.
  ///
  /// Only one thread at a time runs this loop for a box, so observers see changes one at a time and in order,
  /// even when a callback changes the box or another thread writes during a delivery. After
  /// ``queuedRoundsPerWriter`` queued changes, the rest is handed to a task.
  @inlinable
  func callObservers(_ observers: [ObserverEntry<Value>], with value: Value) {
    var observers = observers
    var value = value
    var queuedRounds = 0
    while true {
      // Through the buffer, so that calling an observer does not retain and release its closure and its flag.
      observers.withUnsafeBufferPointer { entries in
        for index in entries.indices where !entries[index].cancellation.isCancelled.load(ordering: .acquiring) {
          entries[index].callback(value)
        }
      }
      switch state.withLock({ $0.nextObserverRound() }) {
      case .done(let released):
        withExtendedLifetime(released) {}
        return
      case .deliver(let nextObservers, let nextValue):
        queuedRounds += 1
        if queuedRounds > Self.queuedRoundsPerWriter {
          Task { self.callObservers(nextObservers, with: nextValue) }
          return
        }
        observers = nextObservers
        value = nextValue
      }
    }
  }

  /// Tells the box's registrar about a change already made: `willSet`, then `didSet`.
  ///
  /// Kept out of line (but specialized) so the write path it branches from stays small enough to inline.
  @inlinable
  @inline(never)
  func trackedChanged() {
    // Published before this change's caller found it; the box's state holds it for as long as the box lives.
    ownRegistrar.holder.unsafelyUnwrapped._withUnsafeGuaranteedRef {
      $0.registrar.willSet(self, keyPath: observationKeyPath)
      $0.registrar.didSet(self, keyPath: observationKeyPath)
    }
  }

}

extension ReactiveBox: Observable {}

extension ReactiveBox {
  /// The value, under the name Observation's key path uses; Observation never reads it.
  subscript(observationMarker marker: TrackingMarker) -> Value {
    state.withLock { $0.value }
  }
}

extension ReactiveBox: CustomStringConvertible {
  /// A description of the box and its current value, for logs and debugging.
  public var description: String {
    "ReactiveBox(\(state.withLock { $0.value }))"
  }
}
