import Foundation
import InMemoryTracing
import Instrumentation
import Metrics
import MetricsTestKit
import SharedObservability
import SharedState
import Synchronization
import Testing
import Tracing

private struct Refused: Error {}

/// A fetcher the test opens: fetches that start wait until it is opened, so a second caller can join one.
private final class HeldFetcher: Sendable {
  private let state = Mutex<(started: Int, open: Bool, waiters: [CheckedContinuation<Void, Never>])>((0, false, []))

  var started: Int { state.withLock { $0.started } }

  func fetch(_ id: Int) async -> String {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Bool in
        state.started += 1
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if ready { continuation.resume() }
    }
    return "post \(id)"
  }

  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// Yields until `condition` holds (the work it waits for runs on the same pool); never sleeps.
private func waitUntil(_ condition: () -> Bool) async {
  while !condition() { await Task.yield() }
}

/// The store's fetches, mutation runs and cache events as metrics and spans, on a fresh registry per test, with
/// swift-metrics' test factory and the in-memory tracer.
@Suite struct StoreTelemetryTests {
  let registry = SharedRegistry()
  let metrics = TestMetrics()
  let tracer = InMemoryTracer()

  private func attach(keyDepth: Int = 1) {
    StoreTelemetry.attach(to: registry, keyDepth: keyDepth, metrics: metrics, tracer: tracer)
  }

  private func options(retries: Int = 0) -> QueryOptions {
    QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(600),
      operation: .retry(RetryPolicy(retries: retries)))
  }

  @Test func aFetchCountsAMissAFetchAndItsDurationAndASecondCallerAHit() async throws {
    attach()
    let query: Query<OperationState<String>> = .query(["posts", 42], options: options()) { "post 42" }
    #expect(try await registry.queries.fetch(query) == "post 42")
    #expect(try await registry.queries.fetch(query) == "post 42")
    #expect(try metrics.expectCounter("shared_fetches_started_total", [("key", "posts")]).totalValue == 1)
    #expect(
      try metrics.expectCounter("shared_fetches_total", [("key", "posts"), ("outcome", "success")]).totalValue == 1)
    #expect(
      try metrics.expectTimer("shared_fetch_duration_seconds", [("key", "posts"), ("outcome", "success")]).values
        .count == 1)
    #expect(
      try metrics.expectCounter("shared_cache_requests_total", [("key", "posts"), ("result", "miss")]).totalValue == 1)
    #expect(
      try metrics.expectCounter("shared_cache_requests_total", [("key", "posts"), ("result", "hit")]).totalValue == 1)
    #expect(try metrics.expectGauge("shared_queries_fetching").lastValue == 0)
    #expect(try metrics.expectGauge("shared_queries_cached").lastValue == 1)
  }

  @Test func aRetriedFetchThatFailsCountsItsRetryAndItsFailure() async throws {
    attach()
    let query: Query<OperationState<String>> = .query(["feed"], options: options(retries: 1)) {
      () async throws -> String in throw Refused()
    }
    await #expect(throws: Refused.self) { try await registry.queries.fetch(query) }
    #expect(try metrics.expectCounter("shared_fetch_retries_total", [("key", "feed")]).totalValue == 1)
    #expect(
      try metrics.expectCounter("shared_fetches_total", [("key", "feed"), ("outcome", "failure")]).totalValue == 1)
    let fetch = try #require(tracer.finishedSpans.first { $0.operationName == "shared.fetch" })
    #expect(fetch.status?.code == .error)
    #expect(fetch.errors.count == 1)
    #expect(fetch.attributes["shared.outcome"]?.toSpanAttribute() == "failure")
    let attempts = tracer.finishedSpans.filter { $0.operationName == "shared.fetch.attempt" }
    #expect(attempts.count == 2)
    #expect(attempts.allSatisfy { $0.parentSpanID == fetch.spanID })
  }

  @Test func aFetchInARequestsSpanIsItsChildAndTheFetcherRunsInItsAttemptsSpan() async throws {
    attach()
    let seen = Mutex<String?>(nil)
    let query: Query<OperationState<String>> = .query(["posts", 1], options: options()) {
      seen.withLock { $0 = ServiceContext.current?.inMemorySpanContext?.spanID }
      return "post 1"
    }
    let queries = registry.queries
    let requestSpanID = try await tracer.withSpan("GET /posts/1") { span in
      _ = try await queries.fetch(query)
      return span.spanID
    }
    let spans = tracer.finishedSpans
    let fetch = try #require(spans.first { $0.operationName == "shared.fetch" })
    let attempt = try #require(spans.first { $0.operationName == "shared.fetch.attempt" })
    let request = try #require(spans.first { $0.operationName == "GET /posts/1" })
    #expect(request.spanID == requestSpanID)
    #expect(fetch.parentSpanID == request.spanID)
    #expect(fetch.traceID == request.traceID)
    #expect(attempt.parentSpanID == fetch.spanID)
    #expect(seen.withLock { $0 } == attempt.spanID)
    #expect(fetch.attributes["shared.key"]?.toSpanAttribute() == "posts")
  }

  @Test func aFetchJoinedByASecondRequestLinksToIt() async throws {
    attach()
    let fetcher = HeldFetcher()
    let query: Query<OperationState<String>> = .query(["posts", 7], options: options()) { await fetcher.fetch(7) }
    let queries = registry.queries
    let tracer = tracer
    let first = Task { try await tracer.withSpan("first request") { _ in try await queries.fetch(query) } }
    await waitUntil { fetcher.started == 1 }
    let second = Task {
      try await tracer.withSpan("second request") { span in
        (try await queries.fetch(query), span.spanID)
      }
    }
    await waitUntil { tracer.activeSpans.first { $0.operationName == "shared.fetch" }?.links.count == 1 }
    fetcher.open()
    #expect(try await first.value == "post 7")
    let (value, secondSpanID) = try await second.value
    #expect(value == "post 7")
    let fetches = tracer.finishedSpans.filter { $0.operationName == "shared.fetch" }
    #expect(fetches.count == 1)
    let link = try #require(fetches.first?.links.first)
    #expect(link.context.inMemorySpanContext?.spanID == secondSpanID)
    #expect(fetcher.started == 1)
  }

  @Test func aMutationRunIsCountedTimedAndTraced() async throws {
    attach()
    let mutation = SharedRegistry.$current.withValue(registry) {
      Shared(wrappedValue: MutationState<Int, Int>(), .mutation(["posts", "like"]))
    }
    let run = mutation.mutate(1) { (count: Int, _: OperationContext<Int>) in count + 1 }
    #expect(try await run.value == 2)
    #expect(
      try metrics.expectCounter("shared_mutations_total", [("key", "posts"), ("outcome", "success")]).totalValue == 1)
    let span = try #require(tracer.finishedSpans.first { $0.operationName == "shared.mutation" })
    let attempt = try #require(tracer.finishedSpans.first { $0.operationName == "shared.mutation.attempt" })
    #expect(attempt.parentSpanID == span.spanID)
  }

  @Test func queriesEvictedOverTheCapacityAreCountedAndTheGaugeFollows() async throws {
    attach()
    registry.queries.capacity = 1
    let first: Query<OperationState<String>> = .query(["a"], options: options()) { "a" }
    let second: Query<OperationState<String>> = .query(["b"], options: options()) { "b" }
    _ = try await registry.queries.fetch(first)
    _ = try await registry.queries.fetch(second)
    #expect(try metrics.expectCounter("shared_queries_removed_total", [("reason", "evicted")]).totalValue == 1)
    #expect(try metrics.expectGauge("shared_queries_cached").lastValue == 1)
  }

  @Test func keysBecomeBoundedLabels() {
    #expect(TelemetryKeys().label(["posts", 42]) == "posts")
    #expect(TelemetryKeys(depth: 2).label(["posts", 42]) == "posts/*")
    #expect(TelemetryKeys(depth: 3).label(["users", 7, "posts"]) == "users/*/posts")
    #expect(TelemetryKeys(depth: 2).label(["search", "swift"]) == "search/swift")
    #expect(TelemetryKeys(depth: 2, allowedStrings: ["search"]).label(["search", "swift"]) == "search/*")
    #expect(TelemetryKeys().label([]) == "(none)")
  }

  @Test func nothingIsMeasuredOnceTheInstrumentIsRemoved() async throws {
    attach()
    registry.instrument = nil
    let query: Query<OperationState<String>> = .query(["feed"], options: options()) { "feed" }
    _ = try await registry.queries.fetch(query)
    #expect(throws: (any Error).self) { try metrics.expectCounter("shared_fetches_started_total", [("key", "feed")]) }
    #expect(tracer.finishedSpans.isEmpty)
  }
}
