import Foundation
import Reactive
import TestSupport
import Testing

@testable import SharedState

/// What a snapshot shows of each kind of key: kind, value summary, holders, iterations, observers, operation,
/// freshness, collection, store errors.
@Suite(.freshRegistry, .timeLimit(.minutes(10))) struct SharedInspectorSnapshotTests {
  @Test func anInMemoryKeyShowsItsValueHoldersAndObservers() throws {
    let counter = Shared(wrappedValue: 3, .inMemory("count"))
    let copy = counter
    let token = copy.observe { _ in }
    let key = try #require(SharedRegistry.current.inspector.snapshot()[id: "inMemory:count"])
    #expect(key.kind == .inMemory)
    #expect(key.name == "count")
    #expect(key.value == ValueSummary(text: "3", isJSON: true, isTruncated: false))
    #expect(key.valueType == "Swift.Int")
    #expect(key.holders == 3)  // `counter`, its copy, and the observer's token.
    #expect(key.observers == 1)
    #expect(key.iterations == 0)
    #expect(key.operation == nil && key.query == nil && key.store == nil && key.queryKey == nil)
    token.cancel()
    withExtendedLifetime(counter) {}
  }

  @Test func aValueIteratedShowsItsIterations() async throws {
    let names = Shared(wrappedValue: ["a"], .inMemory("names"))
    var iterator = names.values.makeAsyncIterator()
    _ = await iterator.next()  // Registered: the first element is the current value.
    let key = try #require(SharedRegistry.current.inspector.snapshot()[id: "inMemory:names"])
    #expect(key.iterations == 1)
    #expect(key.value.text == #"["a"]"#)
    withExtendedLifetime(iterator) {}
  }

  @Test func aValueThatIsNotEncodableShowsItsDescriptionAndALongOneIsCut() throws {
    struct Opaque: Sendable, CustomStringConvertible {
      var description: String { "opaque" }
    }
    let opaque = Shared(wrappedValue: Opaque(), .inMemory("opaque"))
    let long = Shared(wrappedValue: String(repeating: "x", count: ValueSummary.limit * 2), .inMemory("long"))
    let snapshot = SharedRegistry.current.inspector.snapshot()
    #expect(snapshot[id: "inMemory:opaque"]?.value == ValueSummary(text: "opaque", isJSON: false, isTruncated: false))
    let cut = try #require(snapshot[id: "inMemory:long"]?.value)
    #expect(cut.isTruncated && cut.isJSON)
    #expect(cut.text.count == ValueSummary.limit)
    withExtendedLifetime((opaque, long)) {}
  }

  @Test func aFileKeyShowsItsPathAndItsStoresErrors() throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    try Data("not json".utf8).write(to: url)
    let settings = Shared(wrappedValue: Settings(), .fileStorage(url))
    let key = try #require(SharedRegistry.current.inspector.snapshot().keys.first { $0.kind == .file })
    #expect(key.id == "file:\(url.path)")
    #expect(key.name == url.path)
    #expect(key.value.text == #"{"theme":"light","volume":5}"#)
    #expect(key.store?.isLoading == false)
    #expect(key.store?.loadError != nil)  // The corrupt file's error, as text.
    #expect(key.store?.saveError == nil)
    #expect(key.holders == 1)
    withExtendedLifetime(settings) {}
  }

  @Test func aHeldQueryShowsItsStatusFreshnessAndHolders() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    let post = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: clock))
    while let event = await iterator.next(), event.kind.name != "fetchEnded" {}  // Heard once the record settled.
    let snapshot = SharedRegistry.current.inspector.snapshot()
    let key = try #require(snapshot[id: #"query:["posts", 1]"#])
    #expect(key.kind == .query)
    #expect(key.queryKey == ["posts", 1])
    #expect(key.value.text == #""post 1""#)
    #expect(key.operation?.status == .success)
    #expect(key.operation?.isFetching == false)
    #expect(key.operation?.updatedAt != nil)
    #expect(key.holders == 1)
    let query = try #require(key.query)
    #expect(query.isHeld && query.isEnabled && !query.isStale && !query.isForced)
    // Fresh for the query's ten minutes of staleTime: the clock has not moved since the fetch.
    #expect(query.staleAt == snapshot.takenAt.addingTimeInterval(600))
    #expect(query.collectedAt == nil)
    clock.advance(by: .seconds(601))
    let stale = try #require(SharedRegistry.current.inspector.snapshot()[id: key.id]?.query)
    #expect(stale.isStale && stale.staleAt == nil)
    withExtendedLifetime(post) {}
  }

  @Test func aQueryNobodyHoldsShowsWhenItWillBeCollected() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(fetcher.query(["feed"], "feed", clock: clock)) == "feed 1")
    let snapshot = SharedRegistry.current.inspector.snapshot()
    let key = try #require(snapshot[id: #"query:["feed"]"#])
    let query = try #require(key.query)
    #expect(!query.isHeld)
    #expect(key.holders == 0)
    // No garbage check ran yet: a whole gcTime (the test options' minute) from now.
    #expect(query.collectedAt == snapshot.takenAt.addingTimeInterval(60))
  }

  @Test func aFailedQueryShowsItsErrorAndFailures() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    fetcher.setFailing(true)
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    var values = feed.values.makeAsyncIterator()
    while let state = await values.next(), state.status != .error {}
    let operation = try #require(SharedRegistry.current.inspector.snapshot()[id: #"query:["feed"]"#]?.operation)
    #expect(operation.status == .error)
    #expect(operation.error == String(describing: URLError(.notConnectedToInternet)))
    #expect(operation.failureCount == 1)
  }

  @Test func aMutationShowsUnderItsKeyWithItsResult() async throws {
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename"))
    #expect(try await rename.mutate("title") { title in title.count }.value == 5)
    let key = try #require(SharedRegistry.current.inspector.snapshot()[id: "mutation:rename"])
    #expect(key.kind == .mutation)
    #expect(key.operation?.status == .success)
    #expect(key.value.text == "5")
  }

  @Test func aMutationShowsItsRecentRunsWithTheirArgumentsStatusAndError() async throws {
    struct Failure: Error, CustomStringConvertible {
      var description: String { "the server said no" }
    }
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename"))
    _ = try await rename.mutate("title") { title in title.count }.value
    _ = try? await rename.mutate("other") { _ in throw Failure() }.value
    let key = try #require(SharedRegistry.current.inspector.snapshot()[id: "mutation:rename"])
    let runs = try #require(key.mutationRuns)
    #expect(runs.map(\.arguments.text) == [#""title""#, #""other""#])
    #expect(runs.map(\.status) == [.success, .error])
    #expect(runs[0].result?.text == "5" && runs[0].error == nil)
    #expect(runs[1].error == "the server said no" && runs[1].result == nil)
    #expect(runs.allSatisfy { run in run.endedAt.map { $0 >= run.startedAt } == true })
    #expect(runs[0].id < runs[1].id)
    let counter = Shared(wrappedValue: 3, .inMemory("count"))
    #expect(SharedRegistry.current.inspector.snapshot()[id: "inMemory:count"]?.mutationRuns == nil)
    withExtendedLifetime(counter) {}
  }

  @Test func aMutationRunShowsTheMetaItWasStartedWithAsText() async throws {
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename"))
    _ = try await rename.mutate("title", .meta(["screen": "post", "attempts": 2])) { title in title.count }.value
    _ = try await rename.mutate("other") { title in title.count }.value
    let runs = try #require(SharedRegistry.current.inspector.snapshot()[id: "mutation:rename"]?.mutationRuns)
    #expect(runs.map(\.meta) == [["screen": "post", "attempts": "2"], [:]])
  }

  /// A meta value's description is the program's code, like a value's encoding.
  @Test func aMutationRunsMetaIsDescribedOutsideEveryLock() async throws {
    let descriptions = Counter()
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename"))
    let meta: OperationMeta = ["reentrant": ReentrantDescription(descriptions: descriptions)]
    _ = try await rename.mutate("title", .meta(meta)) { title in title.count }.value
    let runs = try #require(SharedRegistry.current.inspector.snapshot()[id: "mutation:rename"]?.mutationRuns)
    #expect(runs.first?.meta == ["reentrant": "seen"])
    #expect(descriptions.count == 2)  // The snapshot's, and the one inside it.
  }

  @Test func aSummaryIsJSONWithSortedKeysOrNullForNothing() {
    #expect(ValueSummary(of: ["milk", "eggs"]).text == #"["milk","eggs"]"#)
    #expect(ValueSummary(of: Settings()).text == #"{"theme":"light","volume":5}"#)
    #expect(ValueSummary(of: OperationState<Int>()) == ValueSummary(text: "null", isJSON: true, isTruncated: false))
    #expect(ValueSummary(of: OperationState(value: 4)).text == "4")
  }

  @Test func aMutationQueueShowsItsEntriesAndWhetherItIsPaused() throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("mutations.json")
    let queue = MutationQueue(file: url, network: ManualOnlineStatus(isOnline: false))
    queue.register(MutationKey<String, String>.mutation("add-note")) { note, _ in note }
    try queue.restore()
    _ = try queue.enqueue("add-note", "milk")
    let key = try #require(SharedRegistry.current.inspector.snapshot()[id: "mutationQueue:\(url.path)"])
    #expect(key.kind == .mutationQueue)
    #expect(key.name == url.path)
    #expect(key.value.isJSON)
    #expect(key.value.text.contains(#""isPaused":true"#))
    #expect(key.value.text.contains(#""key":"[\"add-note\"]""#))
    #expect(key.value.text.contains(#""status":"waiting""#))
    #expect(key.store?.isLoading == false)  // Restored.
    withExtendedLifetime(queue) {}
  }

  @Test func theKeysAreSortedByIdentity() {
    let first = Shared(wrappedValue: 1, .inMemory("b"))
    let second = Shared(wrappedValue: 2, .inMemory("a"))
    let ids = SharedRegistry.current.inspector.snapshot().keys.map(\.id)
    #expect(ids == ids.sorted())
    #expect(ids.contains("inMemory:a") && ids.contains("inMemory:b"))
    withExtendedLifetime((first, second)) {}
  }

  /// A value's `encode(to:)` is the program's code: it may use the registry, its store and the inspector, which
  /// would deadlock if the snapshot held any of their locks.
  @Test func summariesRunOutsideEveryLock() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let post = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: clock))
    await waitForValue(post, "post 1")
    let encodings = Counter()
    let reentrant = Shared(wrappedValue: Reentrant(encodings: encodings), .inMemory("reentrant"))
    let snapshot = SharedRegistry.current.inspector.snapshot()
    #expect(snapshot[id: "inMemory:reentrant"]?.value.text == #"{"seen":true}"#)
    #expect(encodings.count == 2)  // The snapshot's, and the one inside it.
    withExtendedLifetime((post, reentrant)) {}
  }
}

/// A value whose encoding takes a snapshot of the registry and reads the query store.
struct Reentrant: Encodable, Sendable {
  let encodings: Counter

  func encode(to encoder: any Encoder) throws {
    let registry = SharedRegistry.current
    // Only the outer snapshot's encoding goes on; the inner one sees this same value and stops here.
    if encodings.increment() == 1 {
      _ = registry.inspector.snapshot()
      _ = registry.inspector.recentEvents
      _ = registry.queries.count
      _ = registry.count
    }
    var container = encoder.singleValueContainer()
    try container.encode(["seen": true])
  }
}

/// A meta value whose description takes a snapshot of the registry and reads the query store.
struct ReentrantDescription: CustomStringConvertible, Sendable {
  let descriptions: Counter

  var description: String {
    let registry = SharedRegistry.current
    // Only the outer snapshot's description goes on; the inner one sees this same value and stops here.
    if descriptions.increment() == 1 {
      _ = registry.inspector.snapshot()
      _ = registry.queries.count
      _ = registry.count
    }
    return "seen"
  }
}
