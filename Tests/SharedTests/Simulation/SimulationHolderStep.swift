import TestSupport

/// One thing an app does with a list of queries (`QueriesHolder`), with observers of values derived from a holder,
/// or with the inspector, in a simulated program.
///
/// As with every step, a payload that picks something is taken modulo what exists when the step runs.
enum SimulationHolderStep: Hashable, Sendable, CustomStringConvertible {
  /// `list.load(keys.map(query))` on the program's one `QueriesHolder` (the first load makes it): a query in both
  /// lists keeps its holder and is not fetched again.
  case load(keys: [Int])
  /// An observer of a value derived from the newest holder of `key` (its value's last item, in `form`). When
  /// `changesWhileRegistering`, the value changes while the observer registers (the derived getter's first run
  /// appends an item, as a write from another task would in that moment; or, if the registration runs no getter,
  /// right after it) and changes back after it: the observer must hear the change back.
  case observe(key: Int, form: SimulationDerivedForm, changesWhileRegistering: Bool)
  /// The inspector's `moves` on the held query picked by `key` (online), then a restore.
  case inspect(key: Int, moves: [SimulationInspectorMove])

  var description: String {
    switch self {
    case .load(let keys): "the list loads [\(keys.map { "q\($0)" }.joined(separator: ", "))]"
    case .observe(let key, let form, let changes):
      "observe the \(form) of q\(key)'s newest holder\(changes ? ", its value changing while it registers" : "")"
    case .inspect(let key, let moves):
      "the inspector on held query #\(key): \((moves + [.restore]).map(\.description).joined(separator: ", "))"
    }
  }

  /// A step of this kind, or `nil` for a step of another kind (drawn from `random` either way, so that the other
  /// steps' draws do not depend on which of these a program uses).
  static func draw(_ random: inout SplitMix, features: SimulationFeatures, key: Int) -> SimulationHolderStep? {
    let roll = random.next(below: 100)
    let mask = random.next(below: 1 << SimulationSetup.keyCount)
    let form = SimulationDerivedForm.allCases[random.next(below: SimulationDerivedForm.allCases.count)]
    let changes = random.next(below: 2) == 0
    let moves = (0..<2 + random.next(below: 4)).map { _ in
      SimulationInspectorMove.drawn[random.next(below: SimulationInspectorMove.drawn.count)]
    }
    switch roll {
    case 0..<8 where features.holderLists:
      return .load(keys: (0..<SimulationSetup.keyCount).filter { mask & (1 << $0) != 0 })
    case 8..<16 where features.derivedObservers:
      return .observe(key: key, form: form, changesWhileRegistering: changes)
    case 16..<28 where features.inspector:
      return .inspect(key: key, moves: moves)
    default:
      return nil
    }
  }
}

/// How an observer derives its value from a holder's: the last item of the value, through a getter the simulation
/// can make change the holder the first time it runs.
enum SimulationDerivedForm: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `holder.member` (a `Shared` of a member).
  case member
  /// `holder.select { … }`.
  case selection
  /// `SharedReader(holder).member`.
  case readerMember
  /// `Shared(holder.member)`, the member unwrapped.
  case unwrapped

  var description: String {
    switch self {
    case .member: "member"
    case .selection: "selection"
    case .readerMember: "reader's member"
    case .unwrapped: "unwrapped member"
    }
  }
}

/// What a developer does to a query in a devtools panel (`SharedInspector.perform(_:on:)`).
enum SimulationInspectorMove: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  case forceError, forceLoading
  /// `.refetch`, which the server answers with data at once (a write that ends a force).
  case refetch
  case restore
  /// `inspector.snapshot()`.
  case snapshot

  /// The moves a step draws from: forces and refetches more often than restores and snapshots, so that forces
  /// with a refetch between them come often.
  static let drawn: [SimulationInspectorMove] = [
    .forceError, .forceError, .forceLoading, .refetch, .refetch, .restore, .snapshot,
  ]

  var description: String {
    switch self {
    case .forceError: "force an error"
    case .forceLoading: "force loading"
    case .refetch: "refetch (answered with data)"
    case .restore: "restore"
    case .snapshot: "snapshot"
    }
  }
}
