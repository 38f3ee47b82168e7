import TestSupport

/// One thing an app does to its mutation queue, or the server does to the queue's calls, in a simulated program.
///
/// As with every step, a payload that picks something is taken modulo what exists when the step runs.
enum SimulationQueueStep: Hashable, Sendable, CustomStringConvertible {
  /// `queue.enqueue(["sim-queue", key], edit)`, whose optimistic change appends the entry's item to query `key`.
  case enqueue(key: Int)
  /// `queue.discard(id)` of the queued entry picked by `pick` (oldest first).
  case discard(pick: Int)
  /// The server answers the queue's call under way picked by `pick`, applying its item or refusing it.
  case answer(pick: Int, succeeds: Bool)
  /// `await queue.flush()`: what was queued and what left is written.
  case flush
  /// The app does `action`, lets its tasks run for `yields` yields, and is killed: the next launch restores a new
  /// registry (its persisted query cache flushed first) and a new queue from the queue file's bytes as they are at
  /// that moment. When `serverApplies`, the server applies the call under way as the app dies (the answer is lost).
  case crash(action: SimulationCrashAction, yields: Int, serverApplies: Bool)

  var description: String {
    switch self {
    case .enqueue(let key): "queue an entry appending optimistically to q\(key)"
    case .discard(let pick): "discard queued entry #\(pick)"
    case .answer(let pick, let succeeds): "server answers queued call #\(pick): \(succeeds ? "applied" : "refused")"
    case .flush: "flush the queue"
    case .crash(let action, let yields, let serverApplies):
      "\(action.description)kill the app after \(yields) yields\(serverApplies ? " (the server applies the call under way)" : ""), launch it again"
    }
  }

  /// A queue step, or `nil` for a step of another kind (drawn from the same `random` either way, so that the other
  /// steps' draws stay as they are).
  static func draw(_ random: inout SplitMix, key: Int, pick: Int, succeeds: Bool) -> SimulationQueueStep? {
    let roll = random.next(below: 100)
    let yields = [0, 1, 3, 10, 40][random.next(below: 5)]
    let applies = random.next(below: 2) == 0
    switch roll {
    case 0..<10: return .enqueue(key: key)
    case 10..<13: return .discard(pick: pick)
    case 13..<22: return .answer(pick: pick, succeeds: succeeds)
    case 22..<25: return .flush
    case 25..<29:
      let actions: [SimulationCrashAction] = [.none, .enqueue(key: key), .discard(pick: pick), .answer(pick: pick)]
      return .crash(action: actions[random.next(below: actions.count)], yields: yields, serverApplies: applies)
    default: return nil
    }
  }
}

/// What the app does right before a crash, so that the crash falls during the write it starts.
enum SimulationCrashAction: Hashable, Sendable, CustomStringConvertible {
  case none
  case enqueue(key: Int)
  case discard(pick: Int)
  /// The server applies the call under way picked by `pick`, and the app hears it.
  case answer(pick: Int)

  var description: String {
    switch self {
    case .none: ""
    case .enqueue(let key): "queue an entry for q\(key), "
    case .discard(let pick): "discard queued entry #\(pick), "
    case .answer(let pick): "server applies queued call #\(pick), "
    }
  }
}
