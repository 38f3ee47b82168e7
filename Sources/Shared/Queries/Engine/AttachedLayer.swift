/// What a query value's box keeps of the optimistic changes pending on its query: the query's ``OptimisticLayer``,
/// and the value's root, weakly.
///
/// One per box, made with the box's first change or when the box is given its query's pending changes (a woken
/// query's, a new query's), and never replaced: every box the query's value gets over time shares the one layer the
/// store keeps by the query's key (see ``QueryChangeTable``). A change started on the value holds this object, so
/// that it can end on that value without asking the store while the value lives, and starting a change makes no weak
/// reference of its own: the one weak reference here serves every change started on the box.
@usableFromInline
final class AttachedLayer<Value: Sendable>: Sendable {
  /// The pending changes of the value's query.
  @usableFromInline let layer: OptimisticLayer<Value>
  /// The root whose box keeps this object. Weak: the root owns the box, which owns this object, and a change under
  /// way must not keep its query awake.
  @usableFromInline weak let root: SharedRoot<Value>?
  /// Whether the query fell asleep with this box: the garbage check copied its value into the query's record and
  /// dropped the box, so a change that ends after the copy ends through the store, on the value that wakes from the
  /// copy. Read and written only under the box's lock, where the copy is made.
  @usableFromInline nonisolated(unsafe) var isRetired = false

  @inlinable
  init(layer: OptimisticLayer<Value>, root: SharedRoot<Value>) {
    self.layer = layer
    self.root = root
  }
}
