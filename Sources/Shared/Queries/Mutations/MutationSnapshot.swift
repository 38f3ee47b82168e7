public import Foundation

/// One running or recent run of a mutation, read across mutation keys by ``QueryStore/mutations(matching:)``:
/// TanStack Query's `useMutationState` entry.
///
/// ```swift
/// let saving = SharedRegistry.current.queries.mutations(matching: .prefix(["posts"]).status(.pending))
/// let titles = saving.compactMap { $0.arguments(as: String.self) }  // the titles being saved, shown at once
/// ```
///
/// The arguments and the result keep the mutation's own types behind `any Sendable`; ``arguments(as:)`` and
/// ``result(as:)`` read them back as the type you expect.
public struct MutationSnapshot: Sendable {
  /// The mutation's key (``MutationKey/key``).
  public let key: QueryKey
  /// The run's number within its mutation (``MutationRecord/id``).
  public let runID: Int
  /// What the run was called with, as the mutation's `Arguments`.
  public let arguments: any Sendable
  /// How the run went: ``OperationStatus/pending`` while it runs; ``OperationStatus/idle`` if it was cancelled.
  public let status: OperationStatus
  /// The run's result, when it succeeded, as the mutation's `Result`.
  public let result: (any Sendable)?
  /// The run's error, when it failed.
  public let error: HashableError?
  /// When the run was submitted (`mutate` was called).
  public let startedAt: Date
  /// When the run ended, or `nil` while it runs.
  public let endedAt: Date?

  /// The run's arguments as `type`, or `nil` if the mutation takes another type.
  ///
  /// ```swift
  /// let title = snapshot.arguments(as: String.self)
  /// ```
  ///
  /// - Parameter type: The mutation's `Arguments`.
  /// - Returns: The arguments, or `nil` for another type.
  public func arguments<Arguments>(as type: Arguments.Type) -> Arguments? {
    arguments as? Arguments
  }

  /// The run's result as `type`, or `nil` if it has none (yet) or the mutation returns another type.
  ///
  /// ```swift
  /// let saved = snapshot.result(as: Post.self)
  /// ```
  ///
  /// - Parameter type: The mutation's `Result`.
  /// - Returns: The result, or `nil`.
  public func result<Result>(as type: Result.Type) -> Result? {
    result as? Result
  }
}

/// A mutation state that lists its runs for ``QueryStore/mutations(matching:)`` without knowing its types.
protocol MutationRunsReadable {
  /// The runs of the history, oldest first, as snapshots under `key`.
  func snapshots(key: QueryKey) -> [MutationSnapshot]
}

extension MutationState: MutationRunsReadable {
  func snapshots(key: QueryKey) -> [MutationSnapshot] {
    history.map { run in
      MutationSnapshot(
        key: key, runID: run.id, arguments: run.arguments, status: run.status, result: run.result, error: run.error,
        startedAt: run.startedAt, endedAt: run.endedAt)
    }
  }
}
