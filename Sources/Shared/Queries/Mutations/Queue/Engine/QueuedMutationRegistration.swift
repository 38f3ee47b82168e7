import Foundation

/// A mutation function registered with a ``MutationQueue`` under a key, with its types erased: the queue finds it
/// again by key for entries read back after a restart, whose arguments it only has encoded.
struct QueuedMutationRegistration: Sendable {
  /// The key it was registered under; it serves that key and the keys under it.
  let key: QueryKey
  /// The argument and result types, to check what the program queues.
  let argumentsType: Any.Type
  let resultType: Any.Type
  /// The types as text, for an error.
  let typeName: String
  /// When its entries give up; `nil` for the queue's policy.
  let retry: QueuedMutationRetryPolicy?
  /// Decodes the arguments (throwing if they no longer decode) and makes the mutation's optimistic changes in
  /// `store`; returns them to keep or undo, or `nil` when the mutation makes none.
  let applyOptimistic: @Sendable (_ arguments: Data, _ store: QueryStore) throws -> OptimisticChangeSet?
  /// Runs the mutation once with the arguments: through the mutation key's shared state, so its holders see the
  /// run and its history, and the queries it invalidates refetch. `keep` runs as it succeeds, before the
  /// invalidated queries refetch.
  let run:
    @Sendable (_ arguments: Data, _ context: MutationQueueContext, _ keep: @escaping @Sendable () -> Void) async throws
      -> Void

  init<Arguments: Codable & Sendable, Result: Sendable, Context: Sendable>(
    key: MutationKey<Arguments, Result>,
    invalidates: [QueryKey],
    awaitsRefetches: Bool,
    retry: QueuedMutationRetryPolicy?,
    optimistic: OptimisticMutation<Arguments, Context>?,
    perform: @escaping @Sendable (Arguments, MutationQueueContext) async throws -> Result
  ) {
    self.key = key.key
    argumentsType = Arguments.self
    resultType = Result.self
    typeName = "mutation of \(Arguments.self) returning \(Result.self)"
    self.retry = retry
    applyOptimistic = { data, store in
      let arguments = try MutationQueueFile.decodeArguments(Arguments.self, from: data)
      guard let optimistic else { return nil }
      // A queued entry's change waits for its query: it shows whatever the launch restores first.
      let cache = OptimisticCache(store: store, waitsForQuery: true)
      _ = optimistic.start(arguments, cache)
      return cache.changes
    }
    run = { data, context, keep in
      let arguments = try MutationQueueFile.decodeArguments(Arguments.self, from: data)
      let state = Shared(wrappedValue: MutationState<Arguments, Result>(), MutationKey<Arguments, Result>(context.key))
      // One attempt per run: the queue retries, after its own backoff, without letting another entry go first.
      let task = state.mutate(
        arguments, .plain { try await perform(arguments, context) }, options: OperationOptions(), policy: .parallel,
        scope: nil, invalidates: invalidates, awaitsRefetches: awaitsRefetches, isolation: nil,
        beforeInvalidating: keep, onAttempt: nil, onSuccess: nil, onError: nil, onSettled: nil)
      _ = try await task.value
    }
  }

  /// Whether it takes `Arguments` and returns `Result`.
  func accepts<Arguments, Result>(_: Arguments.Type, _: Result.Type) -> Bool {
    argumentsType == Arguments.self && resultType == Result.self
  }
}
