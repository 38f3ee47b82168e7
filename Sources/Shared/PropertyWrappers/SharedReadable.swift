import Reactive

/// What a reader needs of its source.
protocol SharedReadable<Value>: Sendable {
  associatedtype Value: Sendable
  var value: Value { get }
  func values(buffering policy: BufferingPolicy) -> Shared<Value>.Values
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken
  var root: any SharedRootProtocol { get }
}

extension Shared: SharedReadable {
  var value: Value { wrappedValue }
}
