import Reactive

/// A shared value derived from a member of its parent, reached through a writable key path.
struct DerivedMember<Parent: Sendable, Value: Sendable>: DerivedShared {
  let parent: Shared<Parent>
  let keyPath: any WritableKeyPath<Parent, Value> & Sendable

  var value: Value {
    parent.wrappedValue[keyPath: keyPath]
  }

  func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try parent.withLock { (parentValue: inout Parent) throws(Failure) -> Result in
      try body(&parentValue[keyPath: keyPath])
    }
  }

  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken {
    let keyPath = self.keyPath
    let isEqual = equality(for: Value.self)
    return parent.observe(startingFrom: { parentStart in
      let start: @Sendable () -> Value = { parentStart()[keyPath: keyPath] }
      return derivedObserver({ $0[keyPath: keyPath] }, startingFrom: start, isEqual: isEqual, makeObserver(start))
    })
  }

  func makeIterator(policy: BufferingPolicy) -> AnyDerivedIterator<Value> {
    let keyPath = self.keyPath
    return DerivedIterator(
      parent: parent.values(buffering: policy).makeAsyncIterator(),
      derive: { $0[keyPath: keyPath] },
      isEqual: equality(for: Value.self))
  }

  var root: any SharedRootProtocol {
    parent.root
  }

  var path: [any AnyKeyPath & Sendable] {
    parent.coordinationPath + [keyPath]
  }
}
