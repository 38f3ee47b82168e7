import Reactive

/// A read-only value derived from a member of a readable parent, reached through any key path: what a
/// ``SharedReader`` of a member reads.
struct DerivedReader<Parent: Sendable, Value: Sendable>: SharedReadable {
  let parent: any SharedReadable<Parent>
  let keyPath: any KeyPath<Parent, Value> & Sendable

  var value: Value {
    parent.value[keyPath: keyPath]
  }

  func values(buffering policy: BufferingPolicy) -> Shared<Value>.Values {
    let parent = self.parent
    let keyPath = self.keyPath
    return Shared<Value>.Values(
      makeDerived: {
        DerivedIterator(
          parent: parent.values(buffering: policy).makeAsyncIterator(),
          derive: { $0[keyPath: keyPath] },
          isEqual: equality(for: Value.self))
      })
  }

  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    observe(startingFrom: { _ in observer })
  }

  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken {
    let keyPath = self.keyPath
    let isEqual = equality(for: Value.self)
    return parent.observe(startingFrom: { parentStart in
      let start: @Sendable () -> Value = { parentStart()[keyPath: keyPath] }
      return derivedObserver({ $0[keyPath: keyPath] }, startingFrom: start, isEqual: isEqual, makeObserver(start))
    })
  }

  var root: any SharedRootProtocol {
    parent.root
  }
}
