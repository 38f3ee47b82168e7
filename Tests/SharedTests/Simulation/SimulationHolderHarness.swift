import Synchronization
import TestSupport

@testable import SharedState

/// The program's list of queries and its observers of derived values (see `SimulationRunner+Holders`).
final class SimulationHolderHarness {
  typealias State = OperationState<[Int]>

  /// An observer of a value derived from one of `holders[key]`, and what it heard.
  struct Observer {
    var key: Int
    /// The holder's index in the runner's `holders[key]`.
    var holder: Int
    var form: SimulationDerivedForm
    /// Keeps the observer registered (and its holder's value alive); let go with the holder.
    var token: ObserverToken
    /// The derived value now, read through the same derived value the observer is registered on.
    var current: () -> Int?
    /// The derived value once the registration and the change made while it registered were done: what the
    /// observer stands at if it heard nothing since.
    var registered: Int?
    let heard: Collector<Int?>

    /// The value the observer last heard, or stood at when registered.
    var known: Int? { heard.elements.last ?? registered }
  }

  /// The program's `QueriesHolder`, made by its first load, and the keys it holds, in order.
  var list: QueriesHolder<[Int], CombinedQueries<[Int]>>?
  var listKeys: [Int] = []
  var observers: [Observer] = []
  /// The registry the list and the observers belong to: a relaunch makes another, and they go with the old app.
  var registry: SharedRegistry?
  let gap = SimulationGap()
  var changes = 0

  /// Forgets the list and the observers of an app that ended.
  func follow(_ registry: SharedRegistry) {
    guard self.registry !== registry else { return }
    self.registry = registry
    list = nil
    listKeys = []
    observers = []
  }

  /// The observers of `holders[key][index]` are let go; those of later holders move down by one.
  func holderLeft(key: Int, index: Int) {
    observers.removeAll { $0.key == key && $0.holder == index }
    for position in observers.indices where observers[position].key == key && observers[position].holder > index {
      observers[position].holder -= 1
    }
  }

  /// A holder was inserted at `holders[key][0]`: the observers of the others move up by one.
  func holderInsertedFirst(key: Int) {
    for position in observers.indices where observers[position].key == key { observers[position].holder += 1 }
  }
}

/// Runs the action it is armed with once, the first time a derived value's getter asks it to: a write that lands
/// exactly where a registration reads its starting value through the getters, as another task's write could.
final class SimulationGap: Sendable, Hashable {
  private let action = Mutex<(@Sendable () -> Void)?>(nil)

  func arm(_ action: @escaping @Sendable () -> Void) {
    self.action.withLock { $0 = action }
  }

  /// Takes the action back if no getter ran it; returns whether it was still armed.
  func disarm() -> Bool {
    action.withLock { $0.take() } != nil
  }

  /// Runs the armed action, once, after its lock.
  func read() {
    action.withLock { $0.take() }?()
  }

  static func == (lhs: SimulationGap, rhs: SimulationGap) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension OperationState where Value == [Int] {
  /// The value's last item, through a getter that first runs `gap`'s armed action; writing it changes nothing.
  subscript(lastItemThrough gap: SimulationGap) -> Int? {
    get {
      gap.read()
      return value?.last
    }
    set {}
  }
}
