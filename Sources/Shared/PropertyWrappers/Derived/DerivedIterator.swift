/// Derives a value from every value of a parent iterator, skipping values equal to the one before when they are
/// `Equatable`.
final class DerivedIterator<Parent: Sendable, Value: Sendable>: AnyDerivedIterator<Value> {
  private var parent: Shared<Parent>.Values.Iterator
  private let derive: @Sendable (Parent) -> Value?
  private let isEqual: (@Sendable (Value, Value) -> Bool)?
  private var last: Value?

  /// - Parameters:
  ///   - parent: The parent's iterator.
  ///   - derive: The derived value of a parent value, or `nil` to skip it.
  ///   - isEqual: `==` for derived values, or `nil` when they are not `Equatable`.
  init(
    parent: Shared<Parent>.Values.Iterator,
    derive: @escaping @Sendable (Parent) -> Value?,
    isEqual: (@Sendable (Value, Value) -> Bool)?
  ) {
    self.parent = parent
    self.derive = derive
    self.isEqual = isEqual
  }

  override func next(isolation actor: isolated (any Actor)?) async -> Value? {
    while let parentValue = await parent.next(isolation: actor) {
      guard let value = derive(parentValue) else { continue }
      if let isEqual, let last, isEqual(last, value) { continue }
      last = value
      return value
    }
    return nil
  }
}
