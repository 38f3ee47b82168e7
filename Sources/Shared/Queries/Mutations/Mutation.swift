public import Foundation

/// The shared state of a mutation: the status of its latest run, its last result, and a bounded history of recent
/// runs that every holder sees.
///
/// ```swift
/// @Shared(.inMemory("add-todo")) var addTodo = MutationState<String, Todo>()
/// $addTodo.mutate("Water the plants", invalidates: [["todos"]]) { title in
///   try await api.addTodo(title)
/// }
/// addTodo.history.last?.status   // .pending, then .success
/// ```
@dynamicMemberLookup
public struct MutationState<Arguments: Sendable, Result: Sendable>: OperationTrackable {
  /// How the latest run went: status, error (by identity), attempt and time.
  public var operation = OperationTracking()
  /// The result of the last successful run.
  public var value: Result?
  /// Recent runs, oldest first; at most ``historyLimit`` of them.
  public internal(set) var history: [MutationRecord<Arguments, Result>] = []
  /// How many runs ``history`` keeps.
  public let historyLimit: Int
  var nextRecordID = 0

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

  mutating func record(_ arguments: Arguments) -> Int {
    nextRecordID += 1
    history.append(MutationRecord(id: nextRecordID, arguments: arguments, status: .pending, startedAt: Date()))
    if history.count > historyLimit { history.removeFirst(history.count - historyLimit) }
    return nextRecordID
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
  }
}

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

  init(id: Int, arguments: Arguments, status: OperationStatus, startedAt: Date) {
    self.id = id
    self.arguments = arguments
    self.status = status
    self.startedAt = startedAt
  }
}

extension Shared {
  /// Runs the mutation with `arguments`, recording the run in the shared history; after a success, invalidates the
  /// queries whose keys start with any of `invalidates`.
  ///
  /// ```swift
  /// $addTodo.mutate("Water the plants", invalidates: [["todos"]]) { title in
  ///   try await api.addTodo(title)
  /// } onSuccess: { todo in
  ///   toast("Added \(todo.title)")
  /// }
  /// ```
  ///
  /// The run follows ``run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``:
  /// the same policies, retries, callbacks and their order. The history entry is complete before `onSuccess`,
  /// `onError` or `onSettled` run.
  ///
  /// - Parameters:
  ///   - arguments: What to run the mutation with; kept in the history.
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``.
  ///   - policy: What to do when another run is under way.
  ///   - invalidates: Key prefixes of the queries a success makes stale.
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - perform: The mutation.
  ///   - onAttempt: Called when the run starts, before `mutate` returns.
  ///   - onSuccess: Called with the result when the run succeeds.
  ///   - onError: Called with the error when the run fails.
  ///   - onSettled: Called last, with the result.
  /// - Returns: A handle to cancel the run or await its result.
  @discardableResult
  public func mutate<Arguments: Sendable, Result: Sendable>(
    _ arguments: Arguments,
    _ options: OperationOptions = OperationOptions(),
    policy: OperationPolicy = .parallel,
    invalidates: [QueryKey] = [],
    isolation: isolated (any Actor)? = #isolation,
    _ perform: @escaping @Sendable (Arguments) async throws -> Result,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Result) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Swift.Result<Result, any Error>) -> Void)? = nil
  ) -> OperationTask<Result> where Value == MutationState<Arguments, Result> {
    mutate(
      arguments, .plain { try await perform(arguments) }, options: options, policy: policy, invalidates: invalidates,
      isolation: isolation, onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Runs the mutation with `arguments`, its closure receiving the attempt's context as well; otherwise as
  /// ``mutate(_:_:policy:invalidates:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,_,(Arguments)->Result,_,_,_,_)``.
  ///
  /// ```swift
  /// $addTodo.mutate("Water the plants") { title, context in
  ///   if context.attempt > 1 { log("retrying the upload") }
  ///   return try await api.addTodo(title)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - arguments: What to run the mutation with; kept in the history.
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``.
  ///   - policy: What to do when another run is under way.
  ///   - invalidates: Key prefixes of the queries a success makes stale.
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - perform: The mutation, given its arguments and its attempt's context.
  ///   - onAttempt: Called when the run starts, before `mutate` returns.
  ///   - onSuccess: Called with the result when the run succeeds.
  ///   - onError: Called with the error when the run fails.
  ///   - onSettled: Called last, with the result.
  /// - Returns: A handle to cancel the run or await its result.
  @discardableResult
  public func mutate<Arguments: Sendable, Result: Sendable>(
    _ arguments: Arguments,
    _ options: OperationOptions = OperationOptions(),
    policy: OperationPolicy = .parallel,
    invalidates: [QueryKey] = [],
    isolation: isolated (any Actor)? = #isolation,
    _ perform: @escaping @Sendable (Arguments, OperationContext<Result>) async throws -> Result,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Result) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Swift.Result<Result, any Error>) -> Void)? = nil
  ) -> OperationTask<Result> where Value == MutationState<Arguments, Result> {
    mutate(
      arguments, .contextual { context in try await perform(arguments, context) }, options: options, policy: policy,
      invalidates: invalidates, isolation: isolation, onAttempt: onAttempt, onSuccess: onSuccess, onError: onError,
      onSettled: onSettled)
  }

  /// Records a run of the mutation and starts `body`.
  private func mutate<Arguments: Sendable, Result: Sendable>(
    _ arguments: Arguments,
    _ body: OperationBody<Result>,
    options: OperationOptions,
    policy: OperationPolicy,
    invalidates: [QueryKey],
    isolation: isolated (any Actor)?,
    onAttempt: (() -> Void)?,
    onSuccess: ((Result) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Swift.Result<Result, any Error>) -> Void)?
  ) -> OperationTask<Result> where Value == MutationState<Arguments, Result> {
    let id = withLockReleasingReplaced { $0.record(arguments) }
    let queries = SharedRegistry.current.queries
    let shared = self
    return start(
      body, options: options, policy: policy, optimistic: nil, isolation: isolation,
      onAttempt: onAttempt,
      onSuccess: { result in
        shared.withLockReleasingReplaced { $0.finish(id, status: .success, result: result, error: nil) }
        for prefix in invalidates { queries.invalidate(matching: prefix) }
        onSuccess?(result)
      },
      onError: { error in
        shared.withLockReleasingReplaced { $0.finish(id, status: .error, result: nil, error: error) }
        onError?(error)
      },
      onSettled: { result in
        if case .failure(let error) = result, error is CancellationError {
          shared.withLockReleasingReplaced {
            $0.finish(id, status: .idle, result: nil, error: nil, onlyIfPending: true)
          }
        }
        onSettled?(result)
      })
  }
}

extension MutationRecord: Equatable where Arguments: Equatable, Result: Equatable {}
extension MutationState: Equatable where Arguments: Equatable, Result: Equatable {}
