public import Foundation

/// One run of a mutation: what it was called with, how it went, and when.
public struct MutationRecord<Arguments: Sendable, Result: Sendable>: Sendable, Identifiable {
  /// The run's number within its mutation.
  public let id: Int
  /// What the run was called with.
  public let arguments: Arguments
  /// How the run went; ``OperationStatus/idle`` if it was cancelled.
  public internal(set) var status: OperationStatus
  /// The run's result, when it succeeded.
  public internal(set) var result: Result?
  /// The run's error, when it failed.
  public internal(set) var error: HashableError?
  /// When the run started.
  public let startedAt: Date
  /// When the run ended, or `nil` while it runs.
  public internal(set) var endedAt: Date?
  /// The meta the run was started with (``OperationOptions/meta``), for an inspector: one reference.
  let meta: RecordedMeta

  init(id: Int, arguments: Arguments, status: OperationStatus, startedAt: Date, meta: OperationMeta = [:]) {
    self.id = id
    self.arguments = arguments
    self.status = status
    self.startedAt = startedAt
    self.meta = RecordedMeta(meta: meta)
  }
}

extension MutationRecord: Equatable where Arguments: Equatable, Result: Equatable {}
