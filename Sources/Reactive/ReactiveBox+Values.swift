import Synchronization

extension ReactiveBox {
  /// The current value and then every change, keeping only the newest when the consumer falls behind.
  ///
  /// The same as `values(buffering: .latest)`.
  ///
  /// ```swift
  /// for await count in counter.values {
  ///   render(count)
  /// }
  /// ```
  public var values: Values {
    Values(box: self, policy: .latest)
  }

  /// The current value and then changes, buffered for each consumer by `policy`.
  ///
  /// - Parameter policy: How changes that arrive faster than the consumer takes them are kept.
  /// - Returns: A sequence that every consumer may iterate independently.
  public func values(buffering policy: BufferingPolicy) -> Values {
    _ = policy.limit  // Rejects a bounded policy without room for a value here, where the caller can see it.
    return Values(box: self, policy: policy)
  }

  /// An `AsyncSequence` of a box's value: the current value first, then its changes.
  ///
  /// Any number of tasks may iterate one sequence, or several, at once; each iteration gets every change on its
  /// own, buffered by its ``BufferingPolicy``. The first element of an iteration is the value at the moment the
  /// iterator was made, taken under the same lock that registers it, so no change falls between the two.
  ///
  /// An iteration ends when its task is cancelled (promptly, even while it waits), when its iterator is dropped,
  /// or when ``ReactiveBox/finish()`` is called. An iteration keeps its box alive until it ends.
  public struct Values: AsyncSequence, Sendable {
    /// The values of the box.
    public typealias Element = Value
    /// Iterating never fails.
    public typealias Failure = Never

    @usableFromInline let box: ReactiveBox
    @usableFromInline let policy: BufferingPolicy

    @inlinable
    init(box: ReactiveBox, policy: BufferingPolicy) {
      self.box = box
      self.policy = policy
    }

    /// Registers a new consumer, whose first element is the current value.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
      Iterator(subscription: Subscription(box: box, policy: policy))
    }

    /// The iterator of one consumer.
    ///
    /// An iterator belongs to the task that made it; it is not `Sendable`.
    public struct Iterator: AsyncIteratorProtocol {
      @usableFromInline let subscription: Subscription
      /// Values already taken from the box in one go (only under ``BufferingPolicy/all``).
      @usableFromInline var taken = RingBuffer<Value>()

      @inlinable
      init(subscription: Subscription) {
        self.subscription = subscription
      }

      /// The next value, or `nil` when the iteration has ended.
      @inlinable
      public mutating func next() async -> Value? {
        if !taken.isEmpty { return takeFromBatch() }
        return await subscription.next(batch: &taken)
      }

      /// The next value, or `nil` when the iteration has ended.
      @inlinable
      public mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
        if !taken.isEmpty { return takeFromBatch() }
        return await subscription.next(batch: &taken)
      }

      /// The next value of the batch, unless the task was cancelled: then the iteration ends at once.
      @inlinable
      mutating func takeFromBatch() -> Value? {
        if Task.isCancelled {
          taken.removeAll()
          subscription.cancel()
          return nil
        }
        return taken.popFirst()
      }
    }
  }

  /// One consumer's registration with the box. Unregisters when the iterator that owns it goes away.
  @usableFromInline
  final class Subscription: Sendable {
    @usableFromInline let box: ReactiveBox
    @usableFromInline let handle: SlotHandle
    @usableFromInline let takesBatches: Bool

    @inlinable
    init(box: ReactiveBox, policy: BufferingPolicy) {
      self.box = box
      self.takesBatches = policy == .all
      let limit = policy.limit
      self.handle = box.state.withLock { $0.subscribe(limit: limit) }
    }

    deinit {
      cancel()
    }

    @inlinable
    func next(batch: inout RingBuffer<Value>) async -> Value? {
      if Task.isCancelled {
        cancel()
        return nil
      }
      if takesBatches && batch.capacity > RingBuffer<Value>.reusedCapacity {
        batch.removeAll()  // A burst's storage is released here rather than kept by the subscriber.
      }
      let step = box.state.withLock { state -> BoxState<Value>.NextStep in
        if takesBatches && state.takeAll(handle, into: &batch) { return .value(batch.popFirst()!) }
        return state.next(handle)
      }
      switch step {
      case .value(let value): return value
      case .end: return nil  // The removed subscriber is released here, after the lock.
      case .wait: return await wait()
      }
    }

    @inlinable
    func wait() async -> Value? {
      await withTaskCancellationHandler {
        await withUnsafeContinuation { (waiter: UnsafeContinuation<Value?, Never>) in
          let immediate = box.state.withLock { $0.wait(handle, waiter) }
          switch immediate {
          case .value(let value): waiter.resume(returning: value)
          case .end, .wait: waiter.resume(returning: nil)
          case nil: break
          }
        }
      } onCancel: {
        cancel()
      }
    }

    /// Unregisters; a consumer waiting at that moment gets `nil`.
    @inlinable
    func cancel() {
      let removed = box.state.withLock { $0.unsubscribe(handle) }
      removed?.waiter?.resume(returning: nil)
    }
  }
}

@available(*, unavailable)
extension ReactiveBox.Values.Iterator: Sendable {}
