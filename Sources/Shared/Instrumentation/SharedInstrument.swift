/// Measures and traces what a registry's query store does: its fetches and their attempts, its mutation runs, the
/// saves of its keys, and the events counted between them. What metrics and tracing integrations are built on.
///
/// Attach one to a registry with ``SharedRegistry/instrument``; the `SharedObservability` integration is one, on
/// swift-metrics and swift-distributed-tracing. While none is attached, the engines check one flag and do nothing
/// more.
///
/// ```swift
/// final class CountingInstrument: SharedInstrument {
///   let fetches = Mutex(0)
///
///   func begin(_ work: InstrumentedWork) -> any WorkMeasurement {
///     if work.kind == .fetch { fetches.withLock { $0 += 1 } }
///     return UnmeasuredWork()
///   }
/// }
/// ```
///
/// ## Where each call runs
///
/// - ``begin(_:)`` runs where the work starts, in the task that started it: a fetch, in the caller that asked for
///   it (a `fetch`, a holder appearing, an invalidation); a mutation run, in the caller of `mutate`; a save, in the
///   task that saves. Task-local values, such as a trace's context, are the caller's.
/// - ``WorkMeasurement/attempt(_:_:)`` runs around each attempt, in the work's own task; the program's fetch or
///   mutation closure runs inside it, so a task-local value it sets (a span's context) reaches that closure.
/// - ``WorkMeasurement/joined()`` runs in the task of a caller that awaits a fetch another caller started.
/// - ``WorkMeasurement/ended(_:)`` runs once, when the work ended, before its callers resume.
/// - ``record(_:)`` runs where the event happened, after the store's locks are released.
///
/// > Important: No call is made while the library holds a lock, but every call is on the path of the work it
/// > measures: keep them short, and never wait in them.
public protocol SharedInstrument: Sendable {
  /// A fetch, a mutation run or a save starts: returns what measures it until it ends.
  ///
  /// - Parameter work: What starts.
  /// - Returns: The measurement of this work: told of its attempts, of callers that join it, and of how it ended.
  func begin(_ work: InstrumentedWork) -> any WorkMeasurement

  /// Something the store counts happened: a cache hit or miss, queries collected or evicted, work paused for the
  /// network.
  ///
  /// - Parameter event: What happened.
  func record(_ event: InstrumentedEvent)
}

extension SharedInstrument {
  /// Records nothing: an instrument that only measures work need not implement it.
  ///
  /// - Parameter event: What happened.
  public func record(_ event: InstrumentedEvent) {}
}

/// The measurement of one fetch, mutation run or save, from its start to its end (a span, in tracing's words).
///
/// Made by ``SharedInstrument/begin(_:)``. Each method has a default that does nothing (``attempt(_:_:)`` runs the
/// attempt), so a measurement implements only what it needs.
public protocol WorkMeasurement: Sendable {
  /// Runs one attempt of the work: `body` is the attempt (the program's fetch or mutation closure, or the key's
  /// save); call it once and return what it returns, or rethrow what it throws.
  ///
  /// - Parameters:
  ///   - number: The attempt's number: 1 for the first, 2 for the first retry.
  ///   - body: The attempt.
  /// - Returns: What `body` returned.
  func attempt<Success: Sendable>(_ number: Int, _ body: () async throws -> Success) async throws -> Success

  /// A second caller awaits this fetch instead of starting one of its own: called in that caller's task.
  func joined()

  /// The work ended: called once, before its callers resume.
  ///
  /// - Parameter outcome: How it ended.
  func ended(_ outcome: InstrumentedOutcome)
}

extension WorkMeasurement {
  /// Runs the attempt and measures nothing of it.
  ///
  /// - Parameters:
  ///   - number: The attempt's number.
  ///   - body: The attempt.
  /// - Returns: What `body` returned.
  public func attempt<Success: Sendable>(_ number: Int, _ body: () async throws -> Success) async throws -> Success {
    try await body()
  }

  /// Does nothing.
  public func joined() {}

  /// Does nothing.
  ///
  /// - Parameter outcome: How the work ended.
  public func ended(_ outcome: InstrumentedOutcome) {}
}

/// A measurement that measures nothing: what an instrument returns for work it does not follow.
public struct UnmeasuredWork: WorkMeasurement {
  /// Creates a measurement that measures nothing.
  public init() {}
}
