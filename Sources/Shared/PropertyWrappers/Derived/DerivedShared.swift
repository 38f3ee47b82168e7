public import Reactive

/// A shared value derived from another one: a member reached through a key path, or an unwrapped optional.
///
/// Reads and writes go through the parent's lock; listeners listen to the parent and derive their values from its
/// values.
@usableFromInline
protocol DerivedShared<Value>: Sendable {
  associatedtype Value: Sendable

  var value: Value { get }
  func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken
  /// Registers the observer `makeObserver` builds from the value it starts from; see
  /// ``SharedReadable/observe(startingFrom:)``.
  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken
  func makeIterator(policy: BufferingPolicy) -> AnyDerivedIterator<Value>
  var root: any SharedRootProtocol { get }
  /// The key paths from the root to this value; tells apart values inside one root. Each was handed in as
  /// `Sendable` (a member's key path through `subscript(dynamicMember:)`, or a literal without captures).
  var path: [any AnyKeyPath & Sendable] { get }
}

extension DerivedShared {
  /// Calls `observer` with each new derived value, from the value derived when it is registered.
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    observe(startingFrom: { _ in observer })
  }
}
