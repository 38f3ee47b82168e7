public import Reactive

extension Shared {
  /// The current value and then every change, keeping only the newest when the consumer falls behind.
  ///
  /// ```swift
  /// for await count in $counter.values {
  ///   render(count)
  /// }
  /// ```
  ///
  /// The same as `values(buffering: .latest)`. An iteration keeps the shared value alive.
  public var values: Values {
    Values(source: .shared(self, policy: .latest))
  }

  /// The current value and then changes, buffered for each consumer by `policy`.
  ///
  /// ```swift
  /// for await count in $counter.values(buffering: .all) {
  ///   log(count)   // every change, in order
  /// }
  /// ```
  ///
  /// A value derived through a key path emits when its member changes; when the member is `Equatable`, a change of
  /// the parent that leaves the member equal is skipped.
  ///
  /// - Parameter policy: How changes that arrive faster than the consumer takes them are kept.
  /// - Returns: A sequence that every consumer may iterate independently.
  public func values(buffering policy: BufferingPolicy) -> Values {
    Values(source: .shared(self, policy: policy))
  }

  /// An `AsyncSequence` of a shared value: the current value first, then its changes.
  ///
  /// See `ReactiveBox.Values` for ordering, buffering and cancellation; an iteration here also keeps
  /// the shared value alive, so a keyed value is not freed while someone iterates it.
  public struct Values: AsyncSequence, Sendable {
    /// The shared value's values.
    public typealias Element = Value
    /// Iterating never fails.
    public typealias Failure = Never

    enum Source: Sendable {
      case shared(Shared, policy: BufferingPolicy)
      case derived(@Sendable () -> AnyDerivedIterator<Value>)
    }

    let source: Source

    init(source: Source) {
      self.source = source
    }

    init(makeDerived: @escaping @Sendable () -> AnyDerivedIterator<Value>) {
      self.source = .derived(makeDerived)
    }

    /// Registers a new consumer, whose first element is the current value.
    public func makeAsyncIterator() -> Iterator {
      switch source {
      case .shared(let shared, let policy):
        switch shared.reference {
        case .box(let box):
          return Iterator(root: box.values(buffering: policy).makeAsyncIterator(), owner: nil, derived: nil)
        case .root(let root):
          return Iterator(root: root.box.values(buffering: policy).makeAsyncIterator(), owner: root, derived: nil)
        case .derived(let derived):
          return Iterator(root: nil, owner: nil, derived: derived.makeIterator(policy: policy))
        }
      case .derived(let makeIterator):
        return Iterator(root: nil, owner: nil, derived: makeIterator())
      }
    }

    /// The iterator of one consumer; it belongs to the task that made it.
    public struct Iterator: AsyncIteratorProtocol {
      var root: ReactiveBox<Value>.Values.Iterator?
      /// Keeps the shared value alive while this iterator exists.
      let owner: SharedRoot<Value>?
      let derived: AnyDerivedIterator<Value>?

      /// The next value, or `nil` when the iteration has ended.
      public mutating func next() async -> Value? {
        await next(isolation: nil)
      }

      /// The next value, or `nil` when the iteration has ended.
      public mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
        if root != nil { return await root!.next(isolation: actor) }
        return await derived?.next(isolation: actor)
      }
    }
  }
}

@available(*, unavailable)
extension Shared.Values.Iterator: Sendable {}
