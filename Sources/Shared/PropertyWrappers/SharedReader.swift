public import Reactive

/// A read-only view of a shared value: it reads and listens, but cannot write.
///
/// ```swift
/// @SharedReader(.inMemory("counter")) var counter = 0
/// let reader = SharedReader($someShared)    // from a writable holder
/// let count: SharedReader<Int> = reader.items.count   // members through any key path
/// ```
///
/// Hand a reader to code that should watch a value but never change it.
@propertyWrapper
@dynamicMemberLookup
public struct SharedReader<Value: Sendable>: Sendable {
  let source: any SharedReadable<Value>

  init(source: any SharedReadable<Value>) {
    self.source = source
  }

  /// A read-only view of `shared`.
  ///
  /// - Parameter shared: The shared value to read.
  public init(_ shared: Shared<Value>) {
    self.init(source: shared)
  }

  /// Reads the shared value of `key`, creating it from the key's store or `wrappedValue` if nobody holds it yet.
  ///
  /// - Parameters:
  ///   - wrappedValue: The value to start from when the key has no value yet.
  ///   - key: The key that names the value.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.init(Shared(wrappedValue: wrappedValue(), key))
  }

  /// A reader of a value that never changes.
  ///
  /// - Parameter value: The value.
  public static func constant(_ value: Value) -> SharedReader<Value> {
    SharedReader(Shared(value: value))
  }

  /// The current value.
  public var wrappedValue: Value {
    source.value
  }

  /// This reader, for passing it on and listening to it.
  public var projectedValue: SharedReader<Value> {
    self
  }

  /// The current value and then every change, keeping only the newest when the consumer falls behind.
  public var values: Shared<Value>.Values {
    source.values(buffering: .latest)
  }

  /// The current value and then changes, buffered for each consumer by `policy`.
  ///
  /// - Parameter policy: How changes that arrive faster than the consumer takes them are kept.
  /// - Returns: A sequence that every consumer may iterate independently.
  public func values(buffering policy: BufferingPolicy) -> Shared<Value>.Values {
    source.values(buffering: policy)
  }

  /// Calls `observer` with the new value after every change, until the returned token is cancelled or freed.
  ///
  /// - Parameter observer: Called with each new value.
  /// - Returns: A token that keeps the observer registered.
  public func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    source.observe(observer)
  }

  /// A reader derived from this one: its member at `keyPath`, reached through any key path.
  ///
  /// ```swift
  /// func showCount(of todos: SharedReader<[Todo]>) {
  ///   let count: SharedReader<Int> = todos.count   // a computed property is a member too
  /// }
  /// ```
  ///
  /// Its listeners hear about changes of the member; when the member is `Equatable`, other changes are skipped.
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: A reader, derived from this one, of the member.
  public subscript<Member: Sendable>(dynamicMember keyPath: any KeyPath<Value, Member> & Sendable) -> SharedReader<
    Member
  > {
    SharedReader<Member>(source: DerivedReader(parent: source, keyPath: keyPath))
  }

  /// The error of the last attempt to read the key's store, or `nil`.
  public var loadError: (any Error)? {
    source.root.loadError
  }
}

extension SharedReader: CustomStringConvertible {
  /// The current value, described.
  public var description: String {
    "SharedReader(\(wrappedValue))"
  }
}

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
