/// What a ``SharedKey`` may do with the value it backs: replace it with a value from its store, and report errors.
///
/// A context refers to its value weakly: once every holder is gone, its methods do nothing.
public struct SharedKeyContext<Value: Sendable>: Sendable {
  weak var persistence: Persistence<Value>?
  /// Tells apart the shared values a key backs, for stores that keep something per value.
  let valueID: ObjectIdentifier

  init(persistence: Persistence<Value>) {
    self.persistence = persistence
    self.valueID = ObjectIdentifier(persistence)
  }

  /// Replaces the shared value with one read from the store, without saving it back.
  ///
  /// Every holder sees the new value. A change made in the program but not saved yet is dropped in favour of the
  /// store's value; a change made after this call is saved as usual.
  ///
  /// - Parameter value: The value the store now holds.
  public func update(_ value: Value) {
    persistence?.update(fromStore: value)
  }

  /// Records why the store could not be read, or clears the record with `nil`; exposed as ``Shared/loadError``.
  ///
  /// - Parameter error: What went wrong, or `nil` once the store reads fine again.
  public func reportLoadError(_ error: (any Error)?) {
    persistence?.setLoadError(error)
  }

  /// The current value, or `nil` once every holder is gone.
  public var currentValue: Value? {
    persistence?.box.value
  }
}
