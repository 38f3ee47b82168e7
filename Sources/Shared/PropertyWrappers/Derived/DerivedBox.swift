public import Reactive

/// A derived value behind one class reference, so a ``Shared`` is a single pointer that copies without an outlined
/// existential copy.
@usableFromInline
final class DerivedBox<Value: Sendable>: Sendable {
  @usableFromInline let derived: any DerivedShared<Value>

  init(_ derived: some DerivedShared<Value>) {
    self.derived = derived
  }

  /// The current value, read through the parent.
  @inlinable
  var value: Value {
    derived.value
  }

  /// Changes the value under the parent's lock.
  @inlinable
  func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try derived.withLock(body)
  }

  /// Calls `observer` with each new derived value.
  @inlinable
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    derived.observe(observer)
  }

  /// Registers the observer `makeObserver` builds from the value it starts from; see
  /// ``SharedReadable/observe(startingFrom:)``.
  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken {
    derived.observe(startingFrom: makeObserver)
  }

  /// An iterator over the derived values.
  @inlinable
  func makeIterator(policy: BufferingPolicy) -> AnyDerivedIterator<Value> {
    derived.makeIterator(policy: policy)
  }

  /// The root the value is derived from, through any number of parents.
  @inlinable
  var root: any SharedRootProtocol {
    derived.root
  }

  /// The key paths from the root to this value.
  @inlinable
  var path: [any AnyKeyPath & Sendable] {
    derived.path
  }
}
