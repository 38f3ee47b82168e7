public import Reactive

/// A shared value that lives inside another one: a member reached through a key path, or an unwrapped optional.
///
/// Reads and writes go through the parent's lock; listeners listen to the parent and map its values.
@usableFromInline
protocol SharedProjection<Value>: Sendable {
  associatedtype Value: Sendable

  var value: Value { get }
  func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken
  func makeIterator(policy: BufferingPolicy) -> DerivedIterator<Value>
  var root: any SharedRootProtocol { get }
  /// The key paths from the root to this value; tells apart values inside one root. Each was handed in as
  /// `Sendable` (a member's key path through `subscript(dynamicMember:)`, or a literal without captures).
  var path: [any AnyKeyPath & Sendable] { get }
}

/// A projection behind one class reference, so a ``Shared`` is a single pointer that copies without an outlined
/// existential copy.
@usableFromInline
final class Projection<Value: Sendable>: Sendable {
  @usableFromInline let projection: any SharedProjection<Value>

  init(_ projection: some SharedProjection<Value>) {
    self.projection = projection
  }
}

/// An iterator over a derived sequence of values; subclasses map an iterator of a parent.
///
/// Iterators belong to one task, so this class hierarchy need not be `Sendable`.
@usableFromInline
class DerivedIterator<Value: Sendable> {
  @usableFromInline
  func next(isolation actor: isolated (any Actor)?) async -> Value? {
    fatalError("DerivedIterator.next() must be overridden")
  }
}

/// Maps every value of a parent iterator, skipping values equal to the one before when they are `Equatable`.
final class MappedIterator<Parent: Sendable, Value: Sendable>: DerivedIterator<Value> {
  private var parent: Shared<Parent>.Values.Iterator
  private let transform: @Sendable (Parent) -> Value?
  private let isEqual: (@Sendable (Value, Value) -> Bool)?
  private var last: Value?

  init(
    parent: Shared<Parent>.Values.Iterator,
    transform: @escaping @Sendable (Parent) -> Value?,
    isEqual: (@Sendable (Value, Value) -> Bool)?
  ) {
    self.parent = parent
    self.transform = transform
    self.isEqual = isEqual
  }

  override func next(isolation actor: isolated (any Actor)?) async -> Value? {
    while let parentValue = await parent.next(isolation: actor) {
      guard let value = transform(parentValue) else { continue }
      if let isEqual, let last, isEqual(last, value) { continue }
      last = value
      return value
    }
    return nil
  }
}

/// `==` for values whose type turns out to be `Equatable` at run time; `nil` for other types.
func equality<Value>(for type: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
  guard let equatable = type as? any (Equatable & Sendable).Type else { return nil }
  func compare<Comparable: Equatable & Sendable>(_: Comparable.Type) -> @Sendable (Value, Value) -> Bool {
    { lhs, rhs in (lhs as! Comparable) == (rhs as! Comparable) }
  }
  return compare(equatable)
}

/// Calls `observer` with mapped values of a parent, skipping values equal to the one before.
func mappedObserver<Parent: Sendable, Value: Sendable>(
  _ transform: @escaping @Sendable (Parent) -> Value?,
  initial: Value?,
  _ observer: @escaping @Sendable (Value) -> Void
) -> @Sendable (Parent) -> Void {
  let isEqual = equality(for: Value.self)
  let last = LastValue(initial)
  return { parent in
    guard let value = transform(parent) else { return }
    if let isEqual, !last.replace(with: value, unlessEqual: isEqual) { return }
    observer(value)
  }
}
