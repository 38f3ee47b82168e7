import Reactive

/// A member of a readable parent, reached through a read-only key path.
struct ReadOnlyProjection<Parent: Sendable, Value: Sendable>: SharedReadable {
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
        MappedIterator(
          parent: parent.values(buffering: policy).makeAsyncIterator(),
          transform: { $0[keyPath: keyPath] },
          isEqual: equality(for: Value.self))
      })
  }

  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    let keyPath = self.keyPath
    return parent.observe(mappedObserver({ $0[keyPath: keyPath] }, initial: value, observer))
  }

  var root: any SharedRootProtocol {
    parent.root
  }
}
