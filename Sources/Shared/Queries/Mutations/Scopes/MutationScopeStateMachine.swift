/// The turns of the mutations of one ``MutationScope``: one at a time, in the order `mutate` was called.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the scopes'
/// lock around the call and resumes waiters after releasing it. A mutation takes its place (a ticket) synchronously
/// inside `mutate`, so the line's order is the call order; it waits later, on a `Waiter` (a continuation; tests use
/// any value). A mutation that leaves the line (its task was cancelled) is taken out at once, and the ones behind
/// it keep their order. The mutation whose turn it is keeps it until it finishes, cancelled or not.
struct MutationScopeStateMachine<Waiter> {
  /// A mutation waiting for its turn, and its waiter once its task waits.
  struct Queued {
    var ticket: UInt64
    var waiter: Waiter?
  }

  enum State {
    /// No mutation of the scope is under way.
    case idle
    /// `current` has the turn; `line` waits behind it, in call order.
    case running(current: UInt64, line: [Queued])
  }

  private(set) var state = State.idle

  init() {}

  enum EnqueueAction: Equatable, Sendable {
    /// Nothing of the scope runs: the turn is this mutation's now.
    case proceed
    /// The mutation waits for the ones before it.
    case wait
  }

  enum WaitAction {
    /// The turn is here: go on without suspending.
    case proceed
    /// Suspend; a later action resumes the waiter.
    case suspend
    /// The mutation left the line: go on as cancelled.
    case cancelled
  }

  enum LeaveAction {
    /// Resume the mutation's waiter as cancelled.
    case resumeCancelled(Waiter)
    /// Nothing to resume: it had not waited yet, or its turn already came (it must finish).
    case none
  }

  enum FinishAction {
    /// The turn passes to `ticket`: resume its waiter (if it waits already) to go on.
    case pass(to: UInt64, resuming: Waiter?)
    /// Nobody waits: the scope is idle.
    case idle
  }

  /// Whether no mutation of the scope is under way or waiting.
  var isIdle: Bool {
    if case .idle = state { return true }
    return false
  }

  /// Mutation `ticket` joins the end of the line.
  mutating func enqueue(_ ticket: UInt64) -> EnqueueAction {
    switch state {
    case .idle:
      state = .running(current: ticket, line: [])
      return .proceed
    case .running(let current, var line):
      line.append(Queued(ticket: ticket, waiter: nil))
      state = .running(current: current, line: line)
      return .wait
    }
  }

  /// Mutation `ticket` waits for its turn with `waiter`.
  mutating func wait(_ ticket: UInt64, waiter: Waiter) -> WaitAction {
    guard case .running(let current, var line) = state else { return .cancelled }
    if current == ticket { return .proceed }
    guard let index = line.firstIndex(where: { $0.ticket == ticket }) else { return .cancelled }
    line[index].waiter = waiter
    state = .running(current: current, line: line)
    return .suspend
  }

  /// Mutation `ticket` was cancelled: it leaves the line, unless its turn already came.
  mutating func leave(_ ticket: UInt64) -> LeaveAction {
    guard case .running(let current, var line) = state, let index = line.firstIndex(where: { $0.ticket == ticket })
    else { return .none }
    let left = line.remove(at: index)
    state = .running(current: current, line: line)
    return left.waiter.map { .resumeCancelled($0) } ?? .none
  }

  /// The mutation whose turn it was, `ticket`, settled; the next in line has its turn.
  mutating func finish(_ ticket: UInt64) -> FinishAction {
    guard case .running(ticket, var line) = state else {
      preconditionFailure("mutation \(ticket) finished out of its turn")
    }
    guard !line.isEmpty else {
      state = .idle
      return .idle
    }
    let next = line.removeFirst()
    state = .running(current: next.ticket, line: line)
    return .pass(to: next.ticket, resuming: next.waiter)
  }
}

extension MutationScopeStateMachine.WaitAction: Sendable {}
extension MutationScopeStateMachine.LeaveAction: Sendable where Waiter: Sendable {}
extension MutationScopeStateMachine.FinishAction: Sendable where Waiter: Sendable {}
