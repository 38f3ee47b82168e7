import Testing

@testable import SharedState

/// What a query's kind costs every cached query that keeps it.
@Suite struct QueryKindTests {
  @Test func aKindTakesTwoWordsWhateverItsPagingNeeds() {
    // Every cached query keeps its kind: a paginated one is its paginator and the paginator's conformance.
    #expect(MemoryLayout<QueryKind<OperationState<Int>>>.size == 16)
    #expect(MemoryLayout<QueryKind<PaginatedState<Int, [Int]>>>.size == 16)
  }
}
