import Synchronization

extension ReactiveBox {
  /// Calls `observer` with the new value after every change, until the returned token is cancelled or freed.
  ///
  /// Observers run after the lock is released, in the order they were registered, once per change. They are not
  /// called with the current value when registered, only with changes made after that.
  ///
  /// ```swift
  /// let token = settings.observe { settings in
  ///   apply(settings)
  /// }
  /// // Later, or by letting `token` go:
  /// token.cancel()
  /// ```
  ///
  /// Observers of one box see changes one at a time and in the order they were made:
  ///
  /// - Without overlap (the usual case), the thread that made a change calls the observers before its
  ///   `withLock` returns.
  /// - A change made while observers are being called, by a callback or by another thread, is queued; the thread
  ///   that is already delivering calls every observer with it once the current change has reached them all, and
  ///   the `withLock` that made it returns at once. So an observer that changes the box inside its callback is
  ///   called again with that change after the remaining observers have seen the current one.
  /// - A writer delivers at most a few queued changes that are not its own; if more keep coming, a task takes over.
  ///   Under such load an observer may therefore run on another thread than the one that made the change.
  ///
  /// Queued changes wait in memory until observers take them: observers much slower than the writers make the
  /// queue grow.
  ///
  /// - Parameter observer: Called with each new value.
  /// - Returns: A token that keeps the observer registered; cancel it, or let it go, to stop.
  public func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    observe(retaining: self, observer)
  }

  /// ``observe(_:)``, with a token that also keeps `owner` alive (the object that owns this box).
  package func observe(
    retaining owner: some AnyObject & Sendable,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> ObserverToken {
    observe(retaining: owner, startingFrom: { _ in observer })
  }

  /// ``observe(retaining:_:)`` for an observer made from the value it starts from: `makeObserver` gets the current
  /// value in the critical section that registers the observer it returns, so no change falls between the two, and
  /// the observer is called with every change after that value.
  ///
  /// What derives a value from this one compares its first change with the value derived from this starting value.
  ///
  /// > Important: `makeObserver` runs under the lock: it must only build the observer (copy the value, make the
  /// > observer's state), never run the program's code.
  package func observe(
    retaining owner: some AnyObject & Sendable,
    startingFrom makeObserver: (Value) -> @Sendable (Value) -> Void
  ) -> ObserverToken {
    let cancellation = ObserverCancellation()
    let id = state.withLock { state in
      let observer = makeObserver(state.value)
      return state.addObserver { id in
        ObserverEntry(id: id, callback: observer, cancellation: cancellation)
      }
    }
    return ObserverToken(cancellation: cancellation) { [self, owner] in
      withExtendedLifetime(owner) {
        let removed = state.withLock { $0.removeObserver(id) }
        withExtendedLifetime(removed) {}  // Released after the lock.
      }
    }
  }
}
