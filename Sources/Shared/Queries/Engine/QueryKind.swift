/// What kind of query a ``Query`` is, with what that kind brings to its value's holders.
///
/// Every cached query keeps its kind: two words, a paginated query's being its paginator (with its conformance).
enum QueryKind<State: OperationTrackable>: Sendable {
  /// One fetcher produces the whole value.
  case single
  /// A paginated query: its paging does one unit of page work (the next page, the previous page, or a refetch of
  /// every loaded page) from the state it reads at the start, in an attempt's context (a retry of a refetch of
  /// every page goes on from the page that failed), and makes a state restored from a persisted cache one the query
  /// keeps (at most its `maxPages`). Both run the program's code: call them outside every lock.
  case paginated(any QueryPaging<State>)

  /// Whether the query is paginated.
  var isPaginated: Bool {
    if case .paginated = self { return true }
    return false
  }

  /// `state`, restored from a persisted cache, as a query of this kind keeps it: a paginated query's pages cut to
  /// its `maxPages`. Runs the program's code: call outside every lock.
  func kept(restored state: State) -> State {
    guard case .paginated(let paging) = self else { return state }
    return paging.kept(restored: state)
  }
}

/// How a paginated query fetches its pages and keeps a restored state (its ``Paginator``).
///
/// A class-bound protocol, so that a query's kind keeps one reference and its conformance rather than a closure per
/// need: every cached query keeps its kind.
protocol QueryPaging<State>: AnyObject, Sendable {
  associatedtype State: OperationTrackable

  /// Does one attempt (numbered `attempt`) of one unit of page work into `shared`.
  func fetch(_ work: QueryRecordMachine.Work, in shared: Shared<State>, attempt: Int) async throws -> State.Success

  /// `state`, restored from a persisted cache, with the pages the query keeps.
  func kept(restored state: State) -> State
}
