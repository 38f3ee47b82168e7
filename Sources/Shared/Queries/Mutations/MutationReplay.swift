/// How the latest run of a mutation was started, kept in its ``MutationState`` so that
/// ``Shared/retryLatest(isolation:onAttempt:onSuccess:onError:onSettled:)`` can start it again: its arguments, its
/// work (which captured them), its options, policy, scope and invalidations (and whether it awaits their refetches).
/// The callbacks are not kept: they belong to the caller's isolation.
struct MutationReplay<Arguments: Sendable, Result: Sendable>: Sendable {
  /// The run's number in the history.
  let id: Int
  let arguments: Arguments
  let body: OperationBody<Result>
  let options: OperationOptions
  let policy: OperationPolicy
  let scope: MutationScope?
  let invalidates: [QueryKey]
  let awaitsRefetches: Bool
}

extension MutationReplay: Equatable {
  /// Two replays are equal when they start the same run (by its number): the work cannot be compared.
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.id == rhs.id
  }
}
