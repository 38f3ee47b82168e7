/// A stable handle to an element of a ``SlotTable``.
///
/// The generation is unique to each insertion, so a handle to a removed element never names a newer element that
/// reuses its slot.
@usableFromInline
struct SlotHandle: Sendable, Hashable {
  @usableFromInline let index: Int32
  @usableFromInline let generation: UInt64

  @inlinable
  init(index: Int32, generation: UInt64) {
    self.index = index
    self.generation = generation
  }
}
