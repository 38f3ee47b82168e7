/// Calls `observer` with the values derived from a parent's values, skipping values equal to the one before.
///
/// - Parameters:
///   - derive: The derived value of a parent value, or `nil` to skip it.
///   - initial: The derived value now, which the first change is compared with.
///   - observer: The observer of the derived value.
/// - Returns: An observer of the parent.
func derivedObserver<Parent: Sendable, Value: Sendable>(
  _ derive: @escaping @Sendable (Parent) -> Value?,
  initial: Value?,
  _ observer: @escaping @Sendable (Value) -> Void
) -> @Sendable (Parent) -> Void {
  let isEqual = equality(for: Value.self)
  let last = LastValue(initial)
  return { parent in
    guard let value = derive(parent) else { return }
    if let isEqual, !last.replace(with: value, unlessEqual: isEqual) { return }
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
