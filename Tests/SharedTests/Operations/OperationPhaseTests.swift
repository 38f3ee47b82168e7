import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// The phase of an operation state: each status gives its case with the payloads the state holds, for the three state
/// types; runs, query refetches, page fetches and mutations move through the phases as documented; two phases compare
/// their values and their failure's identity.
@Suite(.freshRegistry) struct OperationPhaseTests {
  /// The failure the states below hold.
  static let failure = HashableError(TestFailure())

  /// How an operation went: `status`, the failure if `failed`, a fetch in flight if `fetching`.
  static func tracking(_ status: OperationStatus, failed: Bool = false, fetching: Bool = false) -> OperationTracking {
    var operation = OperationTracking()
    operation.status = status
    operation.error = failed ? failure : nil
    operation.isFetching = fetching
    return operation
  }

  // MARK: Each status, for each state type

  static func post(_ value: String?, _ operation: OperationTracking) -> OperationState<String> {
    var state = OperationState<String>()
    state.value = value
    state.operation = operation
    return state
  }

  @Test func anOperationStateShowsEachStatusWithItsPayloads() {
    let failure = Self.failure
    #expect(Self.post(nil, Self.tracking(.idle)).phase == .idle)
    #expect(Self.post("kept", Self.tracking(.idle)).phase == .loaded("kept"))  // A reset keeps the value.
    #expect(Self.post(nil, Self.tracking(.pending, fetching: true)).phase == .loading(previous: nil))
    #expect(Self.post("before", Self.tracking(.pending, fetching: true)).phase == .loading(previous: "before"))
    // The failure waiting for the next success does not show while a run is pending.
    #expect(Self.post("before", Self.tracking(.pending, failed: true)).phase == .loading(previous: "before"))
    #expect(Self.post("post", Self.tracking(.success)).phase == .loaded("post"))
    #expect(Self.post(nil, Self.tracking(.error, failed: true)).phase == .failed(failure, previous: nil))
    #expect(Self.post("before", Self.tracking(.error, failed: true)).phase == .failed(failure, previous: "before"))
    // A background refetch changes no phase.
    #expect(Self.post("post", Self.tracking(.success, fetching: true)).phase == .loaded("post"))
    #expect(
      Self.post("before", Self.tracking(.error, failed: true, fetching: true)).phase
        == .failed(failure, previous: "before"))
    // Nothing to show: a success with no value, an error status with no error.
    #expect(Self.post(nil, Self.tracking(.success)).phase == .idle)
    #expect(Self.post("post", Self.tracking(.error)).phase == .loaded("post"))
  }

  static func feed(_ pages: [[String]], _ operation: OperationTracking) -> PaginatedState<Int, [String]> {
    var feed = PaginatedState<Int, [String]>()
    feed.replacePages(ids: Array(pages.indices), pages: pages, hasNextPage: true, hasPreviousPage: false)
    feed.operation = operation
    return feed
  }

  @Test func aPaginatedStateShowsItsPagesAsItsValue() {
    let failure = Self.failure
    let pages = [["a", "b"], ["c"]]
    #expect(Self.feed([], Self.tracking(.idle)).phase == .idle)
    #expect(Self.feed([], Self.tracking(.pending, fetching: true)).phase == .loading(previous: nil))
    #expect(Self.feed(pages, Self.tracking(.pending, fetching: true)).phase == .loading(previous: pages))
    #expect(Self.feed(pages, Self.tracking(.success, fetching: true)).phase == .loaded(pages))
    #expect(Self.feed([], Self.tracking(.error, failed: true)).phase == .failed(failure, previous: nil))
    #expect(Self.feed(pages, Self.tracking(.error, failed: true)).phase == .failed(failure, previous: pages))
    // A query that succeeded with no pages has an empty list to show, not nothing.
    #expect(Self.feed([], Self.tracking(.success)).phase == .loaded([]))
  }

  static func rename(_ result: String?, _ operation: OperationTracking) -> MutationState<String, String> {
    var rename = MutationState<String, String>()
    rename.value = result
    rename.operation = operation
    return rename
  }

  @Test func aMutationStateShowsItsLatestResultAsItsValue() {
    let failure = Self.failure
    #expect(Self.rename(nil, Self.tracking(.idle)).phase == .idle)
    #expect(Self.rename(nil, Self.tracking(.pending, fetching: true)).phase == .loading(previous: nil))
    #expect(Self.rename("A", Self.tracking(.pending, fetching: true)).phase == .loading(previous: "A"))
    #expect(Self.rename("A", Self.tracking(.success)).phase == .loaded("A"))
    #expect(Self.rename(nil, Self.tracking(.error, failed: true)).phase == .failed(failure, previous: nil))
    #expect(Self.rename("A", Self.tracking(.error, failed: true)).phase == .failed(failure, previous: "A"))
  }

  @Test func aDomainTypeDerivesItsPhaseFromItsTracking() {
    let failure = Self.failure
    #expect(OperationPhase<String>(Self.tracking(.idle), value: nil) == .idle)
    #expect(OperationPhase(Self.tracking(.pending), value: "user") == .loading(previous: "user"))
    #expect(OperationPhase(Self.tracking(.success), value: "user") == .loaded("user"))
    #expect(OperationPhase(Self.tracking(.error, failed: true), value: "user") == .failed(failure, previous: "user"))
  }

  // MARK: Runs, queries, pages and mutations

  @Test func aRunLoadsThenFailsWithTheValueFromBefore() async throws {
    let post = Shared(wrappedValue: OperationState<String>(), .inMemory("post"))
    #expect(post.wrappedValue.phase == .idle)

    let firstGate = Gate()
    let first = post.run {
      await firstGate.wait()
      return "first"
    }
    #expect(post.wrappedValue.phase == .loading(previous: nil))
    firstGate.open()
    _ = await first.result
    #expect(post.wrappedValue.phase == .loaded("first"))

    let failingGate = Gate()
    let failing = post.run { () async throws -> String in
      await failingGate.wait()
      throw TestFailure()
    }
    // A run is an action the user asked for, not a refresh: loading, with the value it may replace.
    #expect(post.wrappedValue.phase == .loading(previous: "first"))
    failingGate.open()
    _ = await failing.result
    let failure = try #require(post.wrappedValue.operation.storedError)
    #expect(failure.error is TestFailure)
    #expect(post.wrappedValue.phase == .failed(failure, previous: "first"))

    // A reset dismisses the failure and keeps the value.
    post.reset()
    #expect(post.wrappedValue.phase == .loaded("first"))
  }

  @Test func aQueryRefetchStaysLoadedAndItsFailureKeepsTheValue() async throws {
    let gate = Lock<Gate?>(Gate())
    let failing = Lock(false)
    let fetches = Counter()
    let query: Query<OperationState<String>> = .query(["phase"], options: queryStoreOptions(ManualClock())) {
      let number = fetches.increment()
      if let held = gate.withLock({ $0 }) { await held.wait() }
      if failing.withLock({ $0 }) { throw TestFailure() }
      return "post \(number)"
    }
    let post = Shared(wrappedValue: OperationState<String>(), query)
    #expect(post.wrappedValue.phase == .loading(previous: nil))  // A first load.
    gate.withLock { $0 }?.open()
    await waitUntil { post.wrappedValue.status.isSuccess && !post.wrappedValue.isFetching }
    #expect(post.wrappedValue.phase == .loaded("post 1"))

    let refetch = Gate()
    gate.withLock { $0 = refetch }
    failing.withLock { $0 = true }
    SharedRegistry.current.queries.invalidate(matching: ["phase"])
    await waitUntil { post.wrappedValue.isFetching }
    // A refetch is not a load: the status stays success, and the post stays loaded.
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.phase == .loaded("post 1"))
    refetch.open()
    await waitUntil { !post.wrappedValue.isFetching }
    let failure = try #require(post.wrappedValue.operation.storedError)
    #expect(post.wrappedValue.phase == .failed(failure, previous: "post 1"))
  }

  @Test func aFeedStaysLoadedWhileAPageIsFetched() async throws {
    let gate = Lock<Gate?>(Gate())
    let failing = Lock(false)
    let nextPage: @Sendable ([String], Int) -> Int? = { _, id in id + 1 }
    let query: Query<PaginatedState<Int, [String]>> = .paginatedQuery(
      ["feed"], initialPage: 0, nextPage: nextPage, options: queryStoreOptions(ManualClock())
    ) { (id: Int) -> [String] in
      if let held = gate.withLock({ $0 }) { await held.wait() }
      if failing.withLock({ $0 }) { throw TestFailure() }
      return ["page \(id)"]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [String]>(), query)
    #expect(feed.wrappedValue.phase == .loading(previous: nil))  // A first load: no page yet.
    gate.withLock { $0 }?.open()
    await waitUntil { feed.wrappedValue.status.isSuccess && !feed.wrappedValue.isFetching }
    #expect(feed.wrappedValue.phase == .loaded([["page 0"]]))

    let secondPage = Gate()
    gate.withLock { $0 = secondPage }
    let next = feed.fetchNextPage()
    await waitUntil { feed.wrappedValue.isFetchingNextPage }
    // Fetching a page keeps the status: the pages on screen stay loaded.
    #expect(feed.wrappedValue.phase == .loaded([["page 0"]]))
    secondPage.open()
    _ = try await next?.value
    #expect(feed.wrappedValue.phase == .loaded([["page 0"], ["page 1"]]))

    gate.withLock { $0 = nil }
    failing.withLock { $0 = true }
    _ = await feed.fetchNextPage()?.result
    let failure = try #require(feed.wrappedValue.operation.storedError)
    #expect(feed.wrappedValue.phase == .failed(failure, previous: [["page 0"], ["page 1"]]))
  }

  @Test func aMutationShowsItsLatestResult() async throws {
    let rename = Shared(wrappedValue: MutationState<String, String>(), .mutation("rename"))
    #expect(rename.wrappedValue.phase == .idle)
    let gate = Gate()
    let first = rename.mutate("a") { title in
      await gate.wait()
      return title.uppercased()
    }
    #expect(rename.wrappedValue.phase == .loading(previous: nil))
    gate.open()
    _ = await first.result
    #expect(rename.wrappedValue.phase == .loaded("A"))

    let failingGate = Gate()
    let failing = rename.mutate("b") { (_: String) async throws -> String in
      await failingGate.wait()
      throw TestFailure()
    }
    #expect(rename.wrappedValue.phase == .loading(previous: "A"))
    failingGate.open()
    _ = await failing.result
    let failure = try #require(rename.wrappedValue.operation.storedError)
    #expect(rename.wrappedValue.phase == .failed(failure, previous: "A"))
  }

  // MARK: The enumeration itself

  @Test func mapTransformsEveryValueAndKeepsTheCaseAndTheError() {
    let failure = Self.failure
    let double = { (value: Int) in value * 2 }
    #expect(OperationPhase<Int>.idle.map(double) == .idle)
    #expect(OperationPhase<Int>.loading(previous: nil).map(double) == .loading(previous: nil))
    #expect(OperationPhase.loading(previous: 1).map(double) == .loading(previous: 2))
    #expect(OperationPhase.loaded(2).map(double) == .loaded(4))
    #expect(OperationPhase.failed(failure, previous: 3).map(double) == .failed(failure, previous: 6))
    #expect(OperationPhase<Int>.failed(failure, previous: nil).map(double) == .failed(failure, previous: nil))
    #expect(throws: TestFailure.self) {
      try OperationPhase.loaded(1).map { (_: Int) throws(TestFailure) -> Int in throw TestFailure() }
    }
  }

  @Test func phasesCompareAndHashTheirValuesAndTheirFailuresIdentity() {
    let failure = Self.failure
    let copy = failure
    let other = HashableError(TestFailure())
    #expect(OperationPhase<Int>.failed(failure, previous: 1) == .failed(copy, previous: 1))
    #expect(OperationPhase<Int>.failed(failure, previous: 1) != .failed(other, previous: 1))
    #expect(OperationPhase<Int>.failed(failure, previous: 1) != .failed(failure, previous: nil))
    #expect(OperationPhase<Int>.loading(previous: 1) != .loading(previous: 2))
    #expect(OperationPhase<Int>.loading(previous: 1) != .loaded(1))
    #expect(OperationPhase<Int>.idle != .loading(previous: nil))
    let phases: Set<OperationPhase<Int>> = [
      .idle, .loading(previous: 1), .loaded(1), .loaded(1), .failed(failure, previous: 1), .failed(copy, previous: 1),
      .failed(other, previous: 1),
    ]
    #expect(phases.count == 5)
  }

  @Test func aWrappedErrorDescribesItselfAsTheErrorItWraps() {
    struct Described: LocalizedError {
      var errorDescription: String? { "The post is gone" }
      var failureReason: String? { "It was deleted" }
      var recoverySuggestion: String? { "Open another one" }
      var helpAnchor: String? { "deleted-posts" }
    }
    let described = HashableError(Described())
    #expect(described.localizedDescription == "The post is gone")
    #expect(described.failureReason == "It was deleted")
    #expect(described.recoverySuggestion == "Open another one")
    #expect(described.helpAnchor == "deleted-posts")

    let plain = HashableError(TestFailure())
    #expect(plain.localizedDescription == TestFailure().localizedDescription)
    #expect(plain.failureReason == nil)
  }
}
