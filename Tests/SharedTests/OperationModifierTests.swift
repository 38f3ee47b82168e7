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

/// Waits before every attempt, on the attempt's clock, as a preview would.
private struct ArtificialDelay: OperationModifier {
  let delay: Duration

  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success {
    try await context.clock.sleep(for: delay)
    return try await next(context)
  }
}

private struct Unauthorized: Error, Equatable {}

/// The session's token: expired until refreshed.
private final class TokenStore: Sendable {
  private let token = Mutex("expired")
  let refreshes = Counter()

  var current: String { token.withLock { $0 } }

  func refresh(to fresh: String) async {
    refreshes.increment()
    token.withLock { $0 = fresh }
  }
}

/// Refreshes the token and tries once more when an attempt fails with `Unauthorized`.
private struct RefreshingAuth: OperationModifier {
  let tokens: TokenStore
  let fresh: String

  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success {
    do {
      return try await next(context)
    } catch is Unauthorized {
      await tokens.refresh(to: fresh)
      return try await next(context)
    }
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
    let tokens = TokenStore()
    let profile = Shared(value: OperationState<String>())
    let calls = Counter()
    let task = profile.run(.modifier(RefreshingAuth(tokens: tokens, fresh: "fresh"))) {
      calls.increment()
      guard tokens.current == "fresh" else { throw Unauthorized() }
      return "ada"
    }
    #expect(try await task.value == "ada")
    #expect(calls.count == 2)
    #expect(tokens.refreshes.count == 1)
    #expect(profile.wrappedValue.attempt == 1)  // Tried again inside the attempt, not a retry.
    #expect(profile.wrappedValue.status == .success)
  }

  @Test func anAuthModifierTriesOnlyOnceMore() async {
    let tokens = TokenStore()
    let profile = Shared(value: OperationState<String>())
    let calls = Counter()
    let task = profile.run(.modifier(RefreshingAuth(tokens: tokens, fresh: "still expired"))) {
      calls.increment()
      throw Unauthorized()
    }
    await #expect(throws: Unauthorized()) { try await task.value }
    #expect(calls.count == 2)
    #expect(tokens.refreshes.count == 1)
    #expect(profile.wrappedValue.error is Unauthorized)
  }

  @Test func anArtificialDelayWaitsOnTheRunsClock() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let task = post.run(.modifier(ArtificialDelay(delay: .seconds(2))).clock(clock)) {
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
    let task = post.run(.modifier(ArtificialDelay(delay: .seconds(10))).timeout(.seconds(5)).clock(clock)) {
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
