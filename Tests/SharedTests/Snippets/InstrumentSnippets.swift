// The snippets of the documentation comments of SharedInstrument and SharedRegistry.instrument, as they show them,
// so that they compile; the test runs them.
import SharedState
import Synchronization
import Testing

enum InstrumentSnippets {
  final class CountingInstrument: SharedInstrument {
    let fetches = Mutex(0)

    func begin(_ work: InstrumentedWork) -> any WorkMeasurement {
      if work.kind == .fetch { fetches.withLock { $0 += 1 } }
      return UnmeasuredWork()
    }
  }

  static func attach() {
    SharedRegistry.current.instrument = CountingInstrument()
  }
}

@Suite(.freshRegistry) struct InstrumentSnippetTests {
  @Test func theCountingInstrumentCountsTheFetchesOfItsRegistry() async throws {
    InstrumentSnippets.attach()
    let instrument = try #require(SharedRegistry.current.instrument as? InstrumentSnippets.CountingInstrument)
    let query: Query<OperationState<Int>> = .query(["count"], options: QueryOptions(staleTime: .seconds(60))) { 1 }
    _ = try await SharedRegistry.current.queries.fetch(query)
    _ = try await SharedRegistry.current.queries.fetch(query)
    #expect(instrument.fetches.withLock { $0 } == 1)
  }
}
