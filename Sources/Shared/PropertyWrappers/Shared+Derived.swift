import Reactive
import Synchronization

extension Shared {
  /// A shared value for one member of this value, reached through a key path.
  ///
  /// ```swift
  /// @Shared(.inMemory("user")) var user = User(name: "Ada", age: 36)
  /// let name: Shared<String> = $user.name
  /// name.withLock { $0 = "Grace" }   // writes the user; every holder of "user" sees it
  /// ```
  ///
  /// Writing the member writes this value under its lock and notifies its listeners. Listeners of the member hear
  /// about changes of the member; when the member is `Equatable`, other changes of this value are skipped.
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: A shared value that reads and writes the member.
  public subscript<Member: Sendable>(
    dynamicMember keyPath: any WritableKeyPath<Value, Member> & Sendable
  ) -> Shared<Member> {
    Shared<Member>(reference: .derived(Projection(KeyPathProjection(parent: self, keyPath: keyPath))))
  }

  /// A shared value for the wrapped value of an optional, or `nil` while the optional is `nil`.
  ///
  /// ```swift
  /// @Shared(.inMemory("profile")) var profile: Profile? = nil
  /// if let unwrapped = Shared($profile) {
  ///   unwrapped.withLock { $0.bio = "Hello" }
  /// }
  /// ```
  ///
  /// If the optional later becomes `nil`, the unwrapped value keeps reading the last value it had, and its writes
  /// change only that copy: they never bring the optional back from `nil`. Its sequences skip `nil` values.
  ///
  /// - Parameter base: A shared optional.
  public init?(_ base: Shared<Value?>) {
    guard let initial = base.wrappedValue else { return nil }
    self.init(reference: .derived(Projection(UnwrapProjection(parent: base, initial: initial))))
  }
}

/// A member of a parent shared value.
struct KeyPathProjection<Parent: Sendable, Value: Sendable>: SharedProjection {
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

  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    let keyPath = self.keyPath
    return parent.observe(mappedObserver({ $0[keyPath: keyPath] }, initial: value, observer))
  }

  func makeIterator(policy: BufferingPolicy) -> DerivedIterator<Value> {
    let keyPath = self.keyPath
    return MappedIterator(
      parent: parent.values(buffering: policy).makeAsyncIterator(),
      transform: { $0[keyPath: keyPath] },
      isEqual: equality(for: Value.self))
  }

  var root: any SharedRootProtocol {
    parent.root
  }

  var path: [any AnyKeyPath & Sendable] {
    parent.coordinationPath + [keyPath]
  }
}

/// The wrapped value of a parent shared optional, remembering the last non-`nil` value.
struct UnwrapProjection<Value: Sendable>: SharedProjection {
  let parent: Shared<Value?>
  let lastValue: LastKnown<Value>

  init(parent: Shared<Value?>, initial: Value) {
    self.parent = parent
    let lastValue = LastKnown(initial)
    self.lastValue = lastValue
    // Follow every non-nil value, whoever writes it; the weak reference keeps the box from owning the projection.
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
        // The observer the projection keeps records the new value, after the lock.
        defer { optional = wrapped }
        do throws(Failure) { return .success(try body(&wrapped)) } catch { return .failure(error) }
      }
      // The optional is nil: the write changes only this projection's last value, stored after the lock.
      var copy = lastValue.value
      defer { detached = copy }
      do throws(Failure) { return .success(try body(&copy)) } catch { return .failure(error) }
    }
    if let detached { lastValue.store(detached) }
    return try outcome.get()
  }

  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    parent.observe(mappedObserver({ $0 }, initial: value, observer))
  }

  func makeIterator(policy: BufferingPolicy) -> DerivedIterator<Value> {
    MappedIterator(
      parent: parent.values(buffering: policy).makeAsyncIterator(),
      transform: { $0 },
      isEqual: equality(for: Value.self))
  }

  var root: any SharedRootProtocol {
    parent.root
  }

  var path: [any AnyKeyPath & Sendable] {
    parent.coordinationPath + [\Value?.unsafelyUnwrapped]
  }
}

/// The last non-`nil` value of a shared optional.
final class LastKnown<Value: Sendable>: Sendable {
  private let storage: Lock<Value>
  private let token = Lock<ObserverToken?>(nil)

  init(_ value: Value) {
    storage = Lock(value)
  }

  /// Keeps the observer that feeds this value registered for as long as this object lives.
  func follow(_ observer: ObserverToken) {
    token.withLock { $0 = observer }
  }

  var value: Value { storage.withLock { $0 } }

  func store(_ value: Value) {
    let replaced = storage.withLock { stored in
      defer { stored = value }
      return stored
    }
    withExtendedLifetime(replaced) {}  // Released after the lock.
  }
}
