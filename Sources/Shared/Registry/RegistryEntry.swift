/// One key's value in a registry: weakly held unless its key is permanent.
@usableFromInline
struct RegistryEntry {
  @usableFromInline weak var weakObject: AnyObject?
  @usableFromInline var strongObject: AnyObject?
  @usableFromInline let valueType: Any.Type
  @usableFromInline let generation: UInt64
  /// Whether the object is a bare `ReactiveBox` rather than a `SharedRoot`.
  @usableFromInline let isBox: Bool

  @inlinable
  init<Value: Sendable>(reference: Shared<Value>.Reference, isPermanent: Bool, generation: UInt64) {
    let object: AnyObject
    switch reference {
    case .box(let box):
      object = box
      isBox = true
    case .root(let root):
      object = root
      isBox = false
    case .derived:
      preconditionFailure("a registry holds roots, not derived values")
    }
    if isPermanent { strongObject = object } else { weakObject = object }
    self.valueType = Value.self
    self.generation = generation
  }

  @inlinable
  var object: AnyObject? { strongObject ?? weakObject }
}
