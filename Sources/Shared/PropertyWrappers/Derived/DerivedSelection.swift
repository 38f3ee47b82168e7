import Reactive

/// A read-only value computed from every value of a readable parent: what ``Shared/select(_:)`` and
/// ``SharedReader/select(_:)`` return. Its listeners hear only the values that differ from the one before, when it
/// can tell.
struct DerivedSelection<Parent: Sendable, Value: Sendable>: SharedReadable {
  let parent: any SharedReadable<Parent>
  let transform: @Sendable (Parent) -> Value
  /// `==` for the computed values, or `nil` when they cannot be compared (then listeners hear every change).
  let isEqual: (@Sendable (Value, Value) -> Bool)?

  var value: Value {
    transform(parent.value)
  }

  func values(buffering policy: BufferingPolicy) -> Shared<Value>.Values {
    let parent = self.parent
    let transform = self.transform
    let isEqual = self.isEqual
    return Shared<Value>.Values(
      makeDerived: {
        DerivedIterator(
          parent: parent.values(buffering: policy).makeAsyncIterator(),
          derive: transform,
          isEqual: isEqual)
      })
  }

  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    observe(startingFrom: { _ in observer })
  }

  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken {
    let transform = self.transform
    let isEqual = self.isEqual
    return parent.observe(startingFrom: { parentStart in
      let start: @Sendable () -> Value = { transform(parentStart()) }
      return derivedObserver(transform, startingFrom: start, isEqual: isEqual, makeObserver(start))
    })
  }

  var root: any SharedRootProtocol {
    parent.root
  }
}
