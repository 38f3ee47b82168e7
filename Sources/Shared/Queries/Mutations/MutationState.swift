import Foundation

/// The shared state of a mutation: the status of its latest run, its last result, and a bounded history of recent
/// runs that every holder sees.
///
/// ```swift
/// func addTodo(api: API) {
///   @Shared(.inMemory("add-todo")) var addTodo = MutationState<String, Todo>()
///   $addTodo.mutate("Water the plants", invalidates: [["todos"]]) { title in
///     try await api.addTodo(title)
///   }
///   print(addTodo.history.last?.status ?? .idle)  // .pending, then .success
/// }
/// ```
@dynamicMemberLookup
public struct MutationState<Arguments: Sendable, Result: Sendable>: OperationTrackable {
  /// How the latest run went: status, error (by identity), attempt and time.
  public var operation = OperationTracking()
  /// The result of the last successful run.
  public var value: Result?
  /// Recent runs, oldest first; at most ``historyLimit`` of them, besides the runs still under way: a run leaves
  /// (the oldest ended one first) only once it ended, so every run under way is listed.
  public internal(set) var history: [MutationRecord<Arguments, Result>] = []
  /// How many runs ``history`` keeps (more while more runs than that are under way at once).
  public let historyLimit: Int
  var nextRecordID = 0
  /// How the latest run was started, to start it again.
  var latestRun: MutationReplay<Arguments, Result>?

  /// An idle mutation state.
  ///
  /// - Parameter historyLimit: How many recent runs to keep; at least 1.
  public init(historyLimit: Int = 10) {
    precondition(historyLimit >= 1, "A mutation keeps at least one run in its history, not \(historyLimit)")
    self.historyLimit = historyLimit
  }

  /// A member of ``operation``, read and written through the state: `addTodo.status`, `addTodo.error`,
  /// `addTodo.attempt`, `addTodo.updatedAt`.
  ///
  /// ```swift
  /// if addTodo.status.isPending { showSpinner() }
  /// ```
  ///
  /// - Parameter keyPath: The member of ``OperationTracking``.
  /// - Returns: Its value.
  @inlinable
  public subscript<Member>(dynamicMember keyPath: WritableKeyPath<OperationTracking, Member>) -> Member {
    get { operation[keyPath: keyPath] }
    set { operation[keyPath: keyPath] = newValue }
  }

  /// Stores the result of a successful run.
  ///
  /// - Parameter success: The result.
  public mutating func applySuccess(_ success: Result) {
    value = success
  }

  mutating func record(_ arguments: Arguments, meta: OperationMeta = [:]) -> Int {
    nextRecordID += 1
    history.append(
      MutationRecord(id: nextRecordID, arguments: arguments, status: .pending, startedAt: Date(), meta: meta))
    trimHistory()
    return nextRecordID
  }

  /// Drops the oldest ended runs while ``history`` holds more than ``historyLimit``; a run under way stays until it
  /// ends.
  mutating func trimHistory() {
    var excess = history.count - historyLimit
    guard excess > 0 else { return }
    // Most often the oldest runs ended: dropped in place.
    if !history.prefix(excess).contains(where: { $0.status == .pending }) {
      history.removeFirst(excess)
      return
    }
    var kept: [MutationRecord<Arguments, Result>] = []
    kept.reserveCapacity(history.count)
    for run in history {
      if excess > 0, run.status != .pending {
        excess -= 1
      } else {
        kept.append(run)
      }
    }
    history = kept
  }

  /// Records a run started with `arguments`, and keeps how it was started for a retry.
  mutating func record(
    _ arguments: Arguments,
    _ body: OperationBody<Result>,
    options: OperationOptions,
    policy: OperationPolicy,
    scope: MutationScope?,
    invalidates: [QueryKey],
    awaitsRefetches: Bool
  ) -> Int {
    let id = record(arguments, meta: options.meta)
    latestRun = MutationReplay(
      id: id, arguments: arguments, body: body, options: options, policy: policy, scope: scope,
      invalidates: invalidates, awaitsRefetches: awaitsRefetches)
    return id
  }

  mutating func finish(
    _ id: Int,
    status: OperationStatus,
    result: Result?,
    error: (any Error)?,
    onlyIfPending: Bool = false
  ) {
    guard let index = history.firstIndex(where: { $0.id == id }) else { return }
    if onlyIfPending && history[index].status != .pending { return }
    history[index].status = status
    history[index].result = result
    history[index].error = error.map(HashableError.init)
    history[index].endedAt = Date()
    trimHistory()  // A run that ended may leave a history that runs under way made overflow.
  }
}

extension MutationState: Equatable where Arguments: Equatable, Result: Equatable {}
