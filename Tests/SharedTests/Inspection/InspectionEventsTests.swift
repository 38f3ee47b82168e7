import Foundation
import Reactive
import TestSupport
import Testing

@testable import SharedState

/// The events an attached inspector hears, in order; nothing while none is attached; bounded buffers.
@Suite(.freshRegistry, .timeLimit(.minutes(10))) struct InspectionEventsTests {
  @Test func nothingIsRecordedWhileNoInspectorIsAttached() async throws {
    let inspector = SharedRegistry.current.inspector
    #expect(!inspector.isAttached)
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    SharedRegistry.current.queries.invalidate(matching: ["feed"])
    await waitForValue(feed, "feed 2")
    #expect(inspector.recentEvents.isEmpty)
    // The first event recorded after attaching is number 1: nothing was numbered meanwhile.
    let events = inspector.events()
    #expect(inspector.isAttached)
    SharedRegistry.current.queries.invalidate(matching: ["feed"])
    var iterator = events.makeAsyncIterator()
    let first = try #require(await iterator.next())
    #expect(first.sequence == 1)
    #expect(first.kind.name == "invalidated")
    #expect(first.key == #"query:["feed"]"#)
  }

  @Test func aFetchIsHeardStartingAndEndingWithItsValueInOrder() async throws {
    let inspector = SharedRegistry.current.inspector
    let events = inspector.events()
    var iterator = events.makeAsyncIterator()
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    let started = try #require(await iterator.next())
    let ended = try #require(await iterator.next())
    #expect(started.kind.name == "fetchStarted")
    #expect(started.key == #"query:["feed"]"#)
    #expect(ended.key == started.key)
    #expect(ended.sequence == started.sequence + 1)
    guard case .fetchEnded(let duration, .success(let value)) = ended.kind else {
      Issue.record("expected a successful fetchEnded, got \(ended.kind)")
      return
    }
    #expect(duration >= .zero)
    #expect(value.text == #""feed 1""#)
    #expect(inspector.recentEvents.map(\.sequence) == [started.sequence, ended.sequence])
    withExtendedLifetime(feed) {}
  }

  @Test func aFailedFetchEndsWithItsError() async throws {
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    fetcher.setFailing(true)
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    _ = await iterator.next()
    let ended = try #require(await iterator.next())
    guard case .fetchEnded(_, .failure(let error)) = ended.kind else {
      Issue.record("expected a failed fetchEnded, got \(ended.kind)")
      return
    }
    #expect(error == String(describing: URLError(.notConnectedToInternet)))
    withExtendedLifetime(feed) {}
  }

  @Test func invalidatingResettingAndRemovingAreHeardPerQuery() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(fetcher.query(["posts", 1], "one", clock: clock)) == "one 1")
    #expect(try await store.fetch(fetcher.query(["posts", 2], "two", clock: clock)) == "two 1")
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    store.invalidate(.prefix(["posts"]), refetching: .none)
    store.cancel(.exactly(["posts", 1]))  // No fetch runs: nothing to hear.
    store.reset(.exactly(["posts", 2]))
    store.remove(.prefix(["posts"]))
    var heard: [String] = []
    for _ in 0..<5 {
      let event = try #require(await iterator.next())
      heard.append("\(event.kind.name) \(event.key)")
    }
    #expect(
      heard == [
        #"invalidated query:["posts", 1]"#, #"invalidated query:["posts", 2]"#, #"reset query:["posts", 2]"#,
        #"removed query:["posts", 1]"#, #"removed query:["posts", 2]"#,
      ])
  }

  @Test func cancellingIsHeardForAQueryWhoseFetchItStopped() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    fetcher.hold()
    #expect(feed.refetch())
    #expect(await iterator.next()?.kind.name == "fetchStarted")
    #expect(store.cancel(.prefix([])) == 1)
    fetcher.release()
    let cancelled = try #require(await iterator.next())
    let ended = try #require(await iterator.next())
    #expect(cancelled.kind.name == "cancelled")
    guard case .fetchEnded(_, .cancelled) = ended.kind else {
      Issue.record("expected a cancelled fetchEnded, got \(ended.kind)")
      return
    }
  }

  @Test func aQueryNobodyUsedForItsGCTimeIsHeardCollected() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(fetcher.query(["feed"], "feed", clock: clock)) == "feed 1")
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    // Checks run every gcTime / 4 = 15 s: the query goes at the first check a whole minute after one found it unused.
    while store.contains(["feed"]) {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
      await waitUntil { clock.sleeperCount == 1 || !store.contains(["feed"]) }
    }
    let collected = try #require(await iterator.next())
    #expect(collected.kind.name == "collected")
    #expect(collected.key == #"query:["feed"]"#)
  }

  @Test func aMutationsRunIsHeardWithItsCallbacksInTheirOrder() async throws {
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename"))
    _ = try await rename.mutate("title") { title in
      title.count
    } onSuccess: { _ in
    } onSettled: { _ in
    }.value
    _ = try await rename.mutate("again") { title in title.count }.value  // No callbacks: none heard.
    var heard: [String] = []
    for _ in 0..<6 {
      let event = try #require(await iterator.next())
      #expect(event.key == "mutation:rename")
      if case .mutationCallback(let callback) = event.kind {
        heard.append(callback.rawValue)
      } else {
        heard.append(event.kind.name)
      }
    }
    #expect(
      heard == ["mutationStarted", "onSuccess", "mutationEnded", "onSettled", "mutationStarted", "mutationEnded"])
  }

  @Test func aFileKeysLoadsAndSavesAreHeard() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    let settings = Shared(wrappedValue: Settings(), .fileStorage(url))
    let loaded = try #require(await iterator.next())
    #expect(loaded.kind.name == "loaded")
    #expect(loaded.key == "file:\(url.path)")
    settings.withLock { $0.volume = 9 }
    try await settings.save()
    let saved = try #require(await iterator.next())
    #expect(saved.kind.name == "saved")
    #expect(saved.key == loaded.key)
  }

  @Test func aStreamThatFallsBehindKeepsTheNewestEventsAndCountsTheDropped() async throws {
    let inspector = SharedRegistry.current.inspector
    let events = inspector.events(bufferingNewest: 2)
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(fetcher.query(["feed"], "feed", clock: clock)) == "feed 1")
    for _ in 0..<3 { store.invalidate(matching: ["feed"]) }
    // Five events were published (a fetch's two, three invalidations); the stream kept the last two.
    #expect(inspector.droppedEventCount == 3)
    var iterator = events.makeAsyncIterator()
    let kept = [await iterator.next(), await iterator.next()].compactMap { $0?.sequence }
    #expect(kept == [4, 5])
  }

  @Test func theHistoryKeepsTheLastEventsUpToItsLimit() throws {
    let inspector = SharedInspector(historyLimit: 3)
    let events = inspector.events()
    for index in 1...10 { inspector.publish("inMemory:\(index)", .invalidated) }
    #expect(inspector.recentEvents.map(\.sequence) == [8, 9, 10])
    #expect(inspector.recentEvents.map(\.key) == ["inMemory:8", "inMemory:9", "inMemory:10"])
    withExtendedLifetime(events) {}
  }

  @Test func theInspectorDetachesWhenItsLastStreamEnds() async {
    let inspector = SharedRegistry.current.inspector
    var events: InspectionEvents? = inspector.events()
    var other: InspectionEvents? = inspector.events()
    #expect(inspector.isAttached)
    events = nil
    #expect(inspector.isAttached)
    other = nil
    #expect(!inspector.isAttached)
    withExtendedLifetime((events, other)) {}
  }

  /// A fetched value's summary is made after every lock: its `encode(to:)` may use the store and the inspector.
  @Test func aFetchedValueIsSummarizedOutsideEveryLock() async throws {
    let events = SharedRegistry.current.inspector.events()
    var iterator = events.makeAsyncIterator()
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let query: Query<OperationState<ReentrantFetched>> = .query(["reentrant"], options: queryStoreOptions(clock)) {
      ReentrantFetched(registry: registry)
    }
    let held = Shared(wrappedValue: OperationState<ReentrantFetched>(), query)
    _ = await iterator.next()
    let ended = try #require(await iterator.next())
    guard case .fetchEnded(_, .success(let value)) = ended.kind else {
      Issue.record("expected a successful fetchEnded, got \(ended.kind)")
      return
    }
    #expect(value.text == #"{"queries":1}"#)
    withExtendedLifetime(held) {}
  }
}

/// A fetched value whose encoding reads the query store, its snapshot and the inspector's history.
struct ReentrantFetched: Encodable, Sendable {
  let registry: SharedRegistry

  func encode(to encoder: any Encoder) throws {
    _ = registry.inspector.recentEvents
    let queries = registry.queries.count
    var container = encoder.singleValueContainer()
    try container.encode(["queries": queries])
  }
}
