import Reactive

/// What a reader needs of its source.
protocol SharedReadable<Value>: Sendable {
  associatedtype Value: Sendable
  var value: Value { get }
  func values(buffering policy: BufferingPolicy) -> Shared<Value>.Values
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken
  /// Registers the observer `makeObserver` builds from the value it starts from, read in the critical section of the
  /// root's lock that registers it: the observer hears every change after that value.
  ///
  /// `start` computes the starting value (through the getters of any derived values in between, which are the
  /// program's code): call it outside every lock, when the first change needs it. `makeObserver` runs under the
  /// root's lock, so it must only build the observer.
  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken
  var root: any SharedRootProtocol { get }
}

/// Builds an observer from a closure that computes the value the observer starts from; see
/// ``SharedReadable/observe(startingFrom:)``.
@usableFromInline
typealias StartingObserverMaker<Value: Sendable> =
  (_ start: @escaping @Sendable () -> Value) -> @Sendable (Value) -> Void

extension Shared: SharedReadable {
  var value: Value { wrappedValue }
}
