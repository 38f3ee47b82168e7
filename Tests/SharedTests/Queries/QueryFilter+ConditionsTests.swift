import Testing

@testable import SharedState

/// What a filter's conditions accept of a query's view, without a store.
@Suite struct QueryFilterConditionsTests {
  private func candidate(
    status: OperationStatus = .success,
    isFetching: Bool = false,
    isPaused: Bool = false,
    isStale: Bool = false,
    isActive: Bool = true
  ) -> QueryFilter.Candidate {
    var operation = OperationTracking()
    operation.status = status
    operation.isFetching = isFetching
    operation.isPaused = isPaused
    return QueryFilter.Candidate(
      key: ["posts"], operation: operation, isStale: isStale, isActive: isActive, isEnabled: true)
  }

  @Test func eachConditionNarrowsAndTheyAllMustHold() {
    #expect(QueryFilter.all.accepts(candidate()))
    #expect(!QueryFilter.all.hasQueryConditions)
    #expect(!QueryFilter.all.satisfying { _ in true }.hasQueryConditions)
    #expect(QueryFilter.all.only(.active).accepts(candidate(isActive: true)))
    #expect(!QueryFilter.all.only(.active).accepts(candidate(isActive: false)))
    #expect(QueryFilter.all.only(.inactive).accepts(candidate(isActive: false)))
    #expect(QueryFilter.all.stale().accepts(candidate(isStale: true)))
    #expect(!QueryFilter.all.stale().accepts(candidate(isStale: false)))
    #expect(QueryFilter.all.stale(false).accepts(candidate(isStale: false)))
    #expect(QueryFilter.all.fetchStatus(.fetching).accepts(candidate(isFetching: true)))
    #expect(QueryFilter.all.fetchStatus(.paused).accepts(candidate(isPaused: true)))
    #expect(QueryFilter.all.fetchStatus(.idle).accepts(candidate()))
    #expect(!QueryFilter.all.fetchStatus(.idle).accepts(candidate(isPaused: true)))
    let errors = QueryFilter.all.matching { $0.status == .error }
    #expect(errors.hasQueryConditions)
    #expect(errors.accepts(candidate(status: .error)))
    #expect(!errors.matching { $0.isStale }.accepts(candidate(status: .error)))
    #expect(!errors.only(.inactive).accepts(candidate(status: .error)))
  }
}
