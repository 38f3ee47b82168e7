/// The decisions of one call of a key's load: whether its continuation was resumed before the call returned (a
/// synchronous load), after it (an asynchronous one), more than once (the later resumes are ignored), or never (its
/// every copy was dropped).
///
/// It only decides: the caller holds the lock around each event and acts after releasing it. The framework keeps a
/// copy of the continuation until the call returns, so a drop can only follow the return.
struct LoadAttemptStateMachine<Outcome> {
  enum State {
    /// The key's load has not returned, and nothing was resumed.
    case calling
    /// The continuation was resumed before the key's load returned.
    case resumedDuringCall(Outcome)
    /// The key's load returned without resuming: the outcome comes later.
    case waiting
    /// The outcome was handed over (or the drop reported): later resumes are ignored.
    case finished
  }

  /// What to do with a resume.
  enum ResumeAction {
    /// Nothing yet: the outcome is kept for the call's return (a synchronous load).
    case keep
    /// End the load with this outcome (an asynchronous load).
    case deliver(Outcome)
    /// Nothing: the load already has its outcome.
    case ignore
  }

  /// What to do when the key's load returns.
  enum ReturnAction {
    /// End the load now with this outcome.
    case synchronous(Outcome)
    /// The outcome comes later: the value is loading.
    case asynchronous
  }

  private(set) var state = State.calling

  /// The continuation was resumed with `outcome`.
  mutating func resumed(_ outcome: Outcome) -> ResumeAction {
    switch state {
    case .calling:
      state = .resumedDuringCall(outcome)
      return .keep
    case .waiting:
      state = .finished
      return .deliver(outcome)
    case .resumedDuringCall, .finished:
      return .ignore
    }
  }

  /// The key's load returned.
  mutating func loadReturned() -> ReturnAction {
    switch state {
    case .calling:
      state = .waiting
      return .asynchronous
    case .resumedDuringCall(let outcome):
      state = .finished
      return .synchronous(outcome)
    case .waiting, .finished:
      preconditionFailure("a key's load returns once: \(state)")
    }
  }

  /// The last copy of the continuation is gone; returns whether the load must end without an outcome.
  mutating func dropped() -> Bool {
    switch state {
    case .waiting:
      state = .finished
      return true
    case .finished:
      return false
    case .calling, .resumedDuringCall:
      preconditionFailure("the framework keeps the continuation until the key's load returns: \(state)")
    }
  }
}

extension LoadAttemptStateMachine: Sendable where Outcome: Sendable {}
extension LoadAttemptStateMachine.State: Sendable where Outcome: Sendable {}
extension LoadAttemptStateMachine.ResumeAction: Sendable where Outcome: Sendable {}
extension LoadAttemptStateMachine.ReturnAction: Sendable where Outcome: Sendable {}
