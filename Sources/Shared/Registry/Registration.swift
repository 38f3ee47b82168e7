/// Where a root is registered, so it can leave the registry when it goes.
@usableFromInline
struct Registration: Sendable {
  /// Weak: a registry that is gone has nothing to leave, and a value must not keep its registry alive.
  @usableFromInline weak var registry: SharedRegistry?
  @usableFromInline let id: any Hashable & Sendable
  @usableFromInline let generation: UInt64

  @inlinable
  init(registry: SharedRegistry, id: some Hashable & Sendable, generation: UInt64) {
    self.registry = registry
    self.id = id
    self.generation = generation
  }

  func unregister() {
    registry?.remove(id, generation: generation)
  }
}
