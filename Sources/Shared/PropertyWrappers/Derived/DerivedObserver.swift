/// Calls `observer` with the values derived from a parent's values, skipping values equal to the one before.
///
/// Built under the parent's lock, as the observer is registered (see ``SharedReadable/observe(startingFrom:)``): it
/// only keeps `start`, which the first change calls, outside every lock, to learn the value it is compared with.
///
/// - Parameters:
///   - derive: The derived value of a parent value, or `nil` to skip it.
///   - start: Computes the derived value the observer starts from: the one derived from the parent's value at
///     registration.
///   - isEqual: `==` for derived values, or `nil` when they cannot be compared (then every change is delivered).
///   - observer: The observer of the derived value.
/// - Returns: An observer of the parent.
func derivedObserver<Parent: Sendable, Value: Sendable>(
  _ derive: @escaping @Sendable (Parent) -> Value?,
  startingFrom start: @escaping @Sendable () -> Value,
  isEqual: (@Sendable (Value, Value) -> Bool)?,
  _ observer: @escaping @Sendable (Value) -> Void
) -> @Sendable (Parent) -> Void {
  guard let isEqual else {
    return { parent in
      if let value = derive(parent) { observer(value) }
    }
  }
  let last = LastValue(startingFrom: start)
  return { parent in
    guard let value = derive(parent), last.replace(with: value, unlessEqual: isEqual) else { return }
    observer(value)
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
