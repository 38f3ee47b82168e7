import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Records when each attempt enters and leaves it.
private struct Logging: OperationModifier {
  let name: String
  let log: Collector<String>

  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success {
    log.append("\(name) enter \(context.attempt)")
    defer { log.append("\(name) exit \(context.attempt)") }
    return try await next(context)
  }
}

/// Yields `early` before each attempt's work, then holds the attempt at `gate`.
private struct YieldingFirst: OperationModifier {
  let early: Int
  let gate: Gate

  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success {
    if let early = early as? Success { context.yield(early) }
    await gate.wait()
    return try await next(context)
  }
}

/// Leaves a task behind that yields `late` once `release` opens, after the attempt returned; opens `yielded` then.
private struct YieldingLate: OperationModifier {
  let late: Int
  let release: Gate
  let yielded: Gate

  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success {
    let (late, release, yielded) = (late, release, yielded)
    Task {
      await release.wait()
      if let late = late as? Success { context.yield(late) }
      yielded.open()
    }
    return try await next(context)
  }
}

private typealias Article = RunningOperationsArticle

/// The session's token: expired until refreshed to `fresh`.
private final class TokenStore: Article.TokenRefreshing {
  private let token = Mutex("expired")
  let fresh: String
  let refreshes = Counter()

  init(refreshingTo fresh: String) {
    self.fresh = fresh
  }

  var current: String { token.withLock { $0 } }

  func refreshToken() async throws {
    refreshes.increment()
    token.withLock { $0 = fresh }
  }
}

/// Modifiers wrap every attempt: the first added is the outermost, inside the timeout, and retry wraps them all.
@Suite(.freshRegistry) struct OperationModifierTests {
  @Test func modifiersWrapEachAttemptInTheOrderTheyWereAddedInsideTheRetries() async throws {
    let post = Shared(value: OperationState<Int>())
    let log = Collector<String>()
    let options = OperationOptions.modifier(Logging(name: "outer", log: log))
      .modifier(Logging(name: "inner", log: log))
      .retry(.constant(retries: 1, delay: .zero))
    let task = post.run(options) { context in
      log.append("operation \(context.attempt)")
      if context.attempt == 1 { throw TestFailure() }
      return 2
    }
    #expect(try await task.value == 2)
    #expect(
      log.elements == [
        "outer enter 1", "inner enter 1", "operation 1", "inner exit 1", "outer exit 1",
        "outer enter 2", "inner enter 2", "operation 2", "inner exit 2", "outer exit 2",
      ])
  }

  @Test func theModifiersListAndTheBuilderComposeAlike() async throws {
    let post = Shared(value: OperationState<Int>())
    let log = Collector<String>()
    let options = OperationOptions(
      modifiers: [Logging(name: "first", log: log), Logging(name: "second", log: log)])
    #expect(try await post.perform(options) { 1 } == 1)
    #expect(log.elements == ["first enter 1", "second enter 1", "second exit 1", "first exit 1"])
  }

  @Test func anAuthModifierRefreshesTheTokenAndTriesOnceMore() async throws {
    let tokens = TokenStore(refreshingTo: "fresh")
    let profile = Shared(value: OperationState<String>())
    let calls = Counter()
    let task = profile.run(.modifier(Article.RefreshingAuthModifier(session: tokens))) {
      calls.increment()
      guard tokens.current == "fresh" else { throw Article.APIError.unauthorized }
      return "ada"
    }
    #expect(try await task.value == "ada")
    #expect(calls.count == 2)
    #expect(tokens.refreshes.count == 1)
    #expect(profile.wrappedValue.attempt == 1)  // Tried again inside the attempt, not a retry.
    #expect(profile.wrappedValue.status == .success)
  }

  @Test func anAuthModifierTriesOnlyOnceMore() async {
    let tokens = TokenStore(refreshingTo: "still expired")
    let profile = Shared(value: OperationState<String>())
    let calls = Counter()
    let task = profile.run(.modifier(Article.RefreshingAuthModifier(session: tokens))) {
      calls.increment()
      throw Article.APIError.unauthorized
    }
    await #expect(throws: Article.APIError.unauthorized) { try await task.value }
    #expect(calls.count == 2)
    #expect(tokens.refreshes.count == 1)
    #expect(profile.wrappedValue.error as? Article.APIError == .unauthorized)
  }

  @Test func anAuthModifierLeavesOtherErrorsAlone() async {
    let tokens = TokenStore(refreshingTo: "fresh")
    let profile = Shared(value: OperationState<String>())
    let task = profile.run(.modifier(Article.RefreshingAuthModifier(session: tokens))) { throw TestFailure() }
    await #expect(throws: TestFailure.self) { try await task.value }
    #expect(tokens.refreshes.count == 0)
  }

  @Test func theArticlesLoggerLogsEachAttemptAndHowItEnded() async throws {
    let log = Collector<String>()
    let post = Shared(value: OperationState<Int>())
    let options = OperationOptions.modifier(Article.LoggingModifier(log: { log.append($0) }))
      .retry(.constant(retries: 1, delay: .zero))
    let task = post.run(options) { context in
      if context.attempt == 1 { throw TestFailure(code: 5) }
      return 1
    }
    #expect(try await task.value == 1)
    #expect(
      log.elements == [
        "attempt 1 started", "attempt 1 failed: TestFailure(code: 5)", "attempt 2 started", "attempt 2 succeeded",
      ])
  }

  @Test func anArtificialDelayWaitsOnTheRunsClock() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let task = post.run(.modifier(Article.PreviewDelayModifier(delay: .seconds(2))).clock(clock)) {
      calls.increment()
      return 1
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(1_999))
    #expect(calls.count == 0)
    #expect(post.wrappedValue.status == .pending)
    clock.advance(by: .milliseconds(1))
    #expect(try await task.value == 1)
    #expect(calls.count == 1)
  }

  @Test func theTimeoutBoundsTheModifiersToo() async {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let task = post.run(.modifier(Article.PreviewDelayModifier(delay: .seconds(10))).timeout(.seconds(5)).clock(clock))
    {
      calls.increment()
      return 1
    }
    await clock.waitForSleepers(2)  // The delay and the timeout.
    clock.advance(by: .seconds(5))
    await #expect(throws: OperationTimeoutError(timeout: .seconds(5))) { try await task.value }
    #expect(calls.count == 0)
    #expect(post.wrappedValue.status == .error)
  }

  @Test func aQueryFetchRunsThroughItsModifiers() async {
    let log = Collector<String>()
    let options = QueryOptions(
      gcTime: .seconds(60),
      operation: .modifier(Logging(name: "fetch", log: log)).clock(ManualClock()))
    let held = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["modified"], options: options) {
        log.append("fetcher")
        return 3
      })
    await waitUntil { held.wrappedValue.status == .success }
    #expect(held.wrappedValue.value == 3)
    #expect(log.elements == ["fetch enter 1", "fetcher", "fetch exit 1"])
  }

  @Test func aModifierYieldsAroundAFetcherThatTakesNoContext() async {
    // The fetcher cannot yield; its modifier can, so the fetch still shows what it yields.
    let gate = Gate()
    let options = QueryOptions(
      gcTime: .seconds(60), operation: .modifier(YieldingFirst(early: 1, gate: gate)).clock(ManualClock()))
    let held = Shared(wrappedValue: OperationState<Int>(), .query(["yielded by a modifier"], options: options) { 3 })
    await waitUntil { held.wrappedValue.value == 1 }
    #expect(held.wrappedValue.status == .pending)
    gate.open()
    await waitUntil { held.wrappedValue.status == .success }
    #expect(held.wrappedValue.value == 3)
  }

  @Test func aValueAModifierYieldsAfterTheFetchEndedDoesNotLand() async {
    let release = Gate()
    let yielded = Gate()
    let options = QueryOptions(
      gcTime: .seconds(60),
      operation: .modifier(YieldingLate(late: 99, release: release, yielded: yielded)).clock(ManualClock()))
    let held = Shared(wrappedValue: OperationState<Int>(), .query(["yielded late"], options: options) { 3 })
    await waitUntil { held.wrappedValue.status == .success }
    release.open()
    await yielded.wait()
    #expect(held.wrappedValue.value == 3)
    #expect(held.wrappedValue.status == .success)
  }

  @Test func aMutationRunsThroughItsModifiers() async throws {
    let log = Collector<String>()
    let rename = Shared(value: MutationState<String, String>())
    let task = rename.mutate("new", .modifier(Logging(name: "mutation", log: log))) { title in
      log.append("mutate \(title)")
      return title
    }
    #expect(try await task.value == "new")
    #expect(log.elements == ["mutation enter 1", "mutate new", "mutation exit 1"])
  }

  @Test func aModifierCalledDirectlyWithAContextOfItsOwn() async throws {
    let log = Collector<String>()
    let context = OperationContext<Int>(attempt: 3)
    let value = try await Logging(name: "direct", log: log).run(context: context) { context in context.attempt * 2 }
    #expect(value == 6)
    #expect(log.elements == ["direct enter 3", "direct exit 3"])
  }
}
