import Reactive

/// A shared value derived from the wrapped value of its parent, a shared optional; remembers the last non-`nil`
/// value.
struct DerivedUnwrapped<Value: Sendable>: DerivedShared {
  let parent: Shared<Value?>
  let lastValue: LastKnown<Value>

  init(parent: Shared<Value?>, initial: Value) {
    self.parent = parent
    let lastValue = LastKnown(initial)
    self.lastValue = lastValue
    // Follow every non-nil value, whoever writes it; the weak reference keeps the box from owning the derived value.
    lastValue.follow(
      parent.observe { [weak lastValue] value in
        if let value { lastValue?.store(value) }
      })
  }

  var value: Value {
    parent.wrappedValue ?? lastValue.value
  }

  func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let lastValue = self.lastValue
    var detached: Value?
    let outcome = parent.withLock { (optional: inout Value?) -> Swift.Result<Result, Failure> in
      if var wrapped = optional.take() {
        // The observer the derived value keeps records the new value, after the lock.
        defer { optional = wrapped }
        do throws(Failure) { return .success(try body(&wrapped)) } catch { return .failure(error) }
      }
      // The optional is nil: the write changes only this derived value's last value, stored after the lock.
      var copy = lastValue.value
      defer { detached = copy }
      do throws(Failure) { return .success(try body(&copy)) } catch { return .failure(error) }
    }
    if let detached { lastValue.store(detached) }
    return try outcome.get()
  }

  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken {
    let lastValue = self.lastValue
    let isEqual = equality(for: Value.self)
    return parent.observe(startingFrom: { parentStart in
      // The last non-nil value, read under the parent's lock as `withLock` reads it, for a start at `nil`.
      let lastKnown = lastValue.value
      let start: @Sendable () -> Value = { parentStart() ?? lastKnown }
      return derivedObserver({ $0 }, startingFrom: start, isEqual: isEqual, makeObserver(start))
    })
  }

  func makeIterator(policy: BufferingPolicy) -> AnyDerivedIterator<Value> {
    DerivedIterator(
      parent: parent.values(buffering: policy).makeAsyncIterator(),
      derive: { $0 },
      isEqual: equality(for: Value.self))
  }

  var root: any SharedRootProtocol {
    parent.root
  }

  var path: [any AnyKeyPath & Sendable] {
    parent.coordinationPath + [\Value?.unsafelyUnwrapped]
  }
}
