/// How long each fetched value of a query stays fresh, decided by the value (see ``Query/staleTime(_:)``).
///
/// A class: the records of a query share it through their ``QueryDefinition``, which tells queries apart by its
/// identity (a rule cannot be compared otherwise), and a record without one pays nothing for it.
final class QueryStaleness<State: OperationTrackable>: Sendable {
  let staleTime: @Sendable (State.Success) -> Duration

  init(staleTime: @escaping @Sendable (State.Success) -> Duration) {
    self.staleTime = staleTime
  }
}
