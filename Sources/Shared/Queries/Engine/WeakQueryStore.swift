/// A store held weakly, by a fetch that must not keep it alive.
struct WeakQueryStore: Sendable {
  weak var store: QueryStore?
}
