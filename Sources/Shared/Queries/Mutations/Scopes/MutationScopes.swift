import Reactive

/// The lines of the mutation scopes of one registry (``MutationScope``), each a ``MutationScopeStateMachine``, under
/// one lock: decided under it, acted on (continuations resumed) after it.
///
/// A scope's machine exists while a mutation of it is under way or waiting, and goes when the last one finishes, so
/// a scope per entity (`"post-\(id)"`) leaves nothing behind.
final class MutationScopes: Sendable {
  typealias Waiter = UnsafeContinuation<Bool, Never>

  private let state = Lock(State())

  private struct State: ~Copyable {
    var lines: [MutationScope: MutationScopeStateMachine<Waiter>] = [:]
    var lastTicket: UInt64 = 0
  }

  init() {}

  /// How many scopes have a mutation under way or waiting.
  var count: Int {
    state.withLock { $0.lines.count }
  }

  /// A mutation of `scope` takes its place in line; returns its ticket, and whether its turn is now.
  func enqueue(_ scope: MutationScope) -> (ticket: UInt64, proceeds: Bool) {
    state.withLock { state in
      state.lastTicket += 1
      let ticket = state.lastTicket
      let action = state.lines[scope, default: MutationScopeStateMachine()].enqueue(ticket)
      return (ticket, action == .proceed)
    }
  }

  /// Waits for the turn of mutation `ticket` of `scope`: `true` when it came, `false` when the calling task was
  /// cancelled first (the mutation then left the line).
  func waitForTurn(_ scope: MutationScope, ticket: UInt64) async -> Bool {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: Waiter) in
        let action = state.withLock { state in
          state.lines[scope]?.wait(ticket, waiter: continuation) ?? .cancelled
        }
        switch action {
        case .proceed: continuation.resume(returning: true)
        case .suspend: break
        case .cancelled: continuation.resume(returning: false)
        }
      }
    } onCancel: {
      let action = state.withLock { state in state.lines[scope]?.leave(ticket) ?? .none }
      if case .resumeCancelled(let waiter) = action { waiter.resume(returning: false) }
    }
  }

  /// Mutation `ticket` of `scope`, whose turn it was, settled: the next one in line goes on.
  func finish(_ scope: MutationScope, ticket: UInt64) {
    let action = state.withLock { state -> MutationScopeStateMachine<Waiter>.FinishAction in
      guard var line = state.lines.removeValue(forKey: scope) else {
        preconditionFailure("a mutation of scope \(scope) finished, yet the scope has no line")
      }
      let action = line.finish(ticket)
      if !line.isIdle { state.lines[scope] = line }
      return action
    }
    if case .pass(_, let waiter?) = action { waiter.resume(returning: true) }
  }
}
