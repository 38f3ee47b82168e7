public import Foundation

/// One recent run of a mutation, as an inspector shows it: what it was called with, how it went, and when.
///
/// ```swift
/// for key in SharedRegistry.current.inspector.snapshot().keys {
///   for run in key.mutationRuns ?? [] {
///     print(key.name, run.arguments.text, run.status.rawValue, run.error ?? "")
///   }
/// }
/// ```
///
/// Read from a ``MutationState``'s ``MutationState/history``; the arguments and the result are summarized like
/// values are (``ValueSummary``), and the meta the run was started with is described (``OperationMeta/summary``),
/// after every lock. Each run of a history keeps its meta as one reference to the options' own (none when it is
/// empty), so a history of ten runs costs 80 bytes more, and keeps the meta's values alive as long as it keeps
/// their runs.
public struct InspectedMutationRun: Sendable, Hashable, Identifiable {
  /// The run's number within its mutation.
  public var id: Int
  /// What the run was called with, summarized.
  public var arguments: ValueSummary
  /// How the run went: ``OperationStatus/pending`` while it runs, ``OperationStatus/idle`` if it was cancelled.
  public var status: OperationStatus
  /// The run's result, summarized, when it succeeded.
  public var result: ValueSummary?
  /// The description of the run's error, when it failed.
  public var error: String?
  /// When the run started.
  public var startedAt: Date
  /// When the run ended, or `nil` while it runs.
  public var endedAt: Date?
  /// The meta the run was started with (``OperationOptions/meta``), each value as text (``OperationMeta/summary``);
  /// empty when it had none.
  public var meta: [String: String]

  /// A run with the given parts.
  ///
  /// - Parameters:
  ///   - id: The run's number within its mutation.
  ///   - arguments: What the run was called with, summarized.
  ///   - status: How the run went.
  ///   - result: The run's result, summarized, when it succeeded.
  ///   - error: The description of the run's error, when it failed.
  ///   - startedAt: When the run started.
  ///   - endedAt: When the run ended.
  ///   - meta: The meta the run was started with, as text; none by default.
  public init(
    id: Int,
    arguments: ValueSummary,
    status: OperationStatus,
    result: ValueSummary? = nil,
    error: String? = nil,
    startedAt: Date,
    endedAt: Date? = nil,
    meta: [String: String] = [:]
  ) {
    self.id = id
    self.arguments = arguments
    self.status = status
    self.result = result
    self.error = error
    self.startedAt = startedAt
    self.endedAt = endedAt
    self.meta = meta
  }
}

/// A value with a history of mutation runs to show.
protocol InspectedMutationHistory {
  /// The runs, oldest first, summarized: the program's code (encodings and descriptions), so call it outside every
  /// lock.
  var inspectedRuns: [InspectedMutationRun] { get }
}

extension MutationState: InspectedMutationHistory {
  var inspectedRuns: [InspectedMutationRun] {
    history.map { record in
      InspectedMutationRun(
        id: record.id, arguments: ValueSummary(of: record.arguments), status: record.status,
        result: record.result.map { ValueSummary(of: $0) }, error: record.error.map { String(describing: $0.error) },
        startedAt: record.startedAt, endedAt: record.endedAt, meta: record.meta.meta.summary)
    }
  }
}
