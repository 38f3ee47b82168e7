/// An iterator over the values derived from a parent's values, with the parent's type erased; ``DerivedIterator``
/// is the one subclass.
///
/// Iterators belong to one task, so this class hierarchy need not be `Sendable`.
@usableFromInline
class AnyDerivedIterator<Value: Sendable> {
  @usableFromInline
  func next(isolation actor: isolated (any Actor)?) async -> Value? {
    fatalError("AnyDerivedIterator.next() must be overridden")
  }
}
