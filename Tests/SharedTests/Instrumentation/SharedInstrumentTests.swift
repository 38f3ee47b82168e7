import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// What a trace's context is in these tests: a task-local value the instrument reads where work begins and sets
/// around each attempt, as a tracing integration does with its span's context.
enum TraceContext {
  @TaskLocal static var name = "none"
}

/// An instrument that writes every call it hears, in order, with the trace context where it was called.
final class RecordingInstrument: SharedInstrument {
  let calls = Collector<String>()

  func begin(_ work: InstrumentedWork) -> any WorkMeasurement {
    let name = work.key.map { "\($0)" } ?? work.keyKind
    calls.append("begin \(work.kind.rawValue) \(name) in \(TraceContext.name)")
    return RecordingMeasurement(name: "\(work.kind.rawValue) \(name)", calls: calls)
  }

  func record(_ event: InstrumentedEvent) {
    switch event {
    case .cacheHit(let key): calls.append("hit \(key)")
    case .cacheMiss(let key): calls.append("miss \(key)")
    case .queriesRemoved(let keys, let reason, let remaining):
      calls.append("\(reason.rawValue) \(keys.map { "\($0)" }.joined(separator: ",")) leaving \(remaining)")
    case .paused: calls.append("paused")
    }
  }

  /// The calls that begin with `prefix`.
  func calls(_ prefix: String) -> [String] {
    calls.elements.filter { $0.hasPrefix(prefix) }
  }
}

struct RecordingMeasurement: WorkMeasurement {
  let name: String
  let calls: Collector<String>

  func attempt<Success: Sendable>(_ number: Int, _ body: () async throws -> Success) async throws -> Success {
    calls.append("attempt \(number) of \(name)")
    return try await TraceContext.$name.withValue("\(name) attempt \(number)") { try await body() }
  }

  func joined() {
    calls.append("joined \(name) from \(TraceContext.name)")
  }

  func ended(_ outcome: InstrumentedOutcome) {
    calls.append("ended \(name) \(outcome.name)")
  }
}

private struct Refused: Error {}

/// An instrument attached to a registry hears its fetches, their attempts, mutation runs, saves and the cache's
/// events, where each happens; while none is attached, nothing is called.
@Suite(.freshRegistry) struct SharedInstrumentTests {
  private var store: QueryStore { SharedRegistry.current.queries }

  @Test func aFetchIsMeasuredFromTheCallersContextWithEachAttemptAroundTheFetcher() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    let clock = ManualClock()
    let seen = Collector<String>()
    let failures = Counter()
    let query: Query<OperationState<String>> = .query(
      ["posts", 1],
      options: QueryOptions(
        staleTime: .seconds(60), gcTime: .seconds(60),
        operation: OperationOptions(retry: RetryPolicy(retries: 1, backoff: { _ in .zero }), clock: clock))
    ) {
      seen.append(TraceContext.name)
      if failures.increment() == 1 { throw Refused() }
      return "post"
    }
    let value = try await TraceContext.$name.withValue("request") { try await store.fetch(query) }
    #expect(value == "post")
    #expect(seen.elements == ["fetch [\"posts\", 1] attempt 1", "fetch [\"posts\", 1] attempt 2"])
    #expect(
      instrument.calls.elements == [
        "miss [\"posts\", 1]",
        "begin fetch [\"posts\", 1] in request",
        "attempt 1 of fetch [\"posts\", 1]",
        "attempt 2 of fetch [\"posts\", 1]",
        "ended fetch [\"posts\", 1] success",
      ])
    // Fresh: answered from the cache, with nothing begun.
    #expect(try await store.fetch(query) == "post")
    #expect(instrument.calls.elements.last == "hit [\"posts\", 1]")
    #expect(instrument.calls("begin").count == 1)
  }

  @Test func aFetchThatFailsForGoodEndsWithItsError() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    let query: Query<OperationState<String>> = .query(
      ["feed"], options: queryStoreOptions(ManualClock())
    ) { () async throws -> String in throw Refused() }
    await #expect(throws: Refused.self) { try await store.fetch(query) }
    #expect(instrument.calls("ended") == ["ended fetch [\"feed\"] failure"])
  }

  @Test func aCallerThatJoinsAFetchUnderWayIsHeardInItsOwnContext() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    let fetcher = GatedFetcher()
    let gate = fetcher.hold()
    let query: Query<OperationState<String>> = .query(["feed"], options: queryStoreOptions(ManualClock())) {
      await fetcher.fetch()
    }
    let store = store
    let first = Task { try await TraceContext.$name.withValue("first") { try await store.fetch(query) } }
    await waitUntil { fetcher.fetches.count == 1 }
    let second = Task { try await TraceContext.$name.withValue("second") { try await store.fetch(query) } }
    await waitUntil { instrument.calls("joined").count == 1 }
    gate.open()
    #expect(try await first.value == "fetch 1")
    #expect(try await second.value == "fetch 1")
    #expect(instrument.calls("begin") == ["begin fetch [\"feed\"] in first"])
    #expect(instrument.calls("joined") == ["joined fetch [\"feed\"] from second"])
    #expect(instrument.calls("miss").count == 2)
    #expect(instrument.calls("ended") == ["ended fetch [\"feed\"] success"])
  }

  @Test func aMutationRunIsMeasuredWithItsAttemptsAroundTheMutation() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    @Shared(.mutation("rename")) var rename = MutationState<String, String>()
    let seen = Collector<String>()
    let task = TraceContext.$name.withValue("request") {
      $rename.mutate("new") { (title: String, _: OperationContext<String>) in
        seen.append(TraceContext.name)
        throw Refused()
      }
    }
    await #expect(throws: Refused.self) { try await task.value }
    #expect(seen.elements == ["mutation [\"rename\"] attempt 1"])
    #expect(
      instrument.calls.elements == [
        "begin mutation [\"rename\"] in request",
        "attempt 1 of mutation [\"rename\"]",
        "ended mutation [\"rename\"] failure",
      ])
  }

  @Test func aSaveIsMeasuredWithItsKeysKind() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    @Shared(.fileStorage(folder.file("count.json"))) var count = 0
    $count.withLock { $0 = 1 }
    try await $count.save()
    #expect(instrument.calls("begin").first == "begin save FileStorageKey in none")
    #expect(instrument.calls("attempt").first == "attempt 1 of save FileStorageKey")
    #expect(instrument.calls("ended").first == "ended save FileStorageKey success")
  }

  @Test func queriesEvictedOverTheCapacityAreHeardWithWhatRemains() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    store.capacity = 1
    let options = queryStoreOptions(ManualClock())
    let first: Query<OperationState<String>> = .query(["a"], options: options) { "a" }
    let second: Query<OperationState<String>> = .query(["b"], options: options) { "b" }
    _ = try await store.fetch(first)
    _ = try await store.fetch(second)
    #expect(instrument.calls("evicted") == ["evicted [\"a\"] leaving 1"])
  }

  @Test func workThatWaitsForTheNetworkIsHeardPaused() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    let network = ManualOnlineStatus(isOnline: false)
    store.onlineStatus = network
    let query: Query<OperationState<String>> = .query(["feed"], options: queryStoreOptions(ManualClock())) { "feed" }
    let store = store
    let fetch = Task { try await store.fetch(query) }
    await waitUntil { instrument.calls("paused").count == 1 }
    network.setOnline(true)
    #expect(try await fetch.value == "feed")
    #expect(instrument.calls("ended") == ["ended fetch [\"feed\"] success"])
  }

  @Test func nothingIsHeardOnceTheInstrumentIsRemoved() async throws {
    let instrument = RecordingInstrument()
    SharedRegistry.current.instrument = instrument
    #expect(SharedRegistry.current.instrument != nil)
    SharedRegistry.current.instrument = nil
    #expect(SharedRegistry.current.instrument == nil)
    let query: Query<OperationState<String>> = .query(["feed"], options: queryStoreOptions(ManualClock())) { "feed" }
    _ = try await store.fetch(query)
    #expect(instrument.calls.elements.isEmpty)
  }
}

/// A mutation's run belongs to the registry its state was made in, whichever registry is current where `mutate` is
/// called.
@Suite(.freshRegistry) struct SharedInstrumentRegistryTests {
  @Test func aMutationRunIsMeasuredByTheRegistryItsStateBelongsTo() async throws {
    let other = SharedRegistry()
    let instrument = RecordingInstrument()
    other.instrument = instrument
    let rename = inRegistry(other) { Shared(wrappedValue: MutationState<String, String>(), .mutation("rename")) }
    let task = rename.mutate("new") { (title: String, _: OperationContext<String>) in title }
    #expect(try await task.value == "new")
    #expect(instrument.calls("begin") == ["begin mutation [\"rename\"] in none"])
    #expect(other.queries.mutations().count == 1)
    #expect(SharedRegistry.current.queries.mutations().isEmpty)
  }
}
