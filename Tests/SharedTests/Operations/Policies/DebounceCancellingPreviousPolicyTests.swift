import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Search as you type: ``OperationPolicy/debounceCancellingPrevious(_:)`` runs the last trigger of a burst, cancels
/// the run in flight as the next one starts, and shows its runs as a refresh of the results on screen.
@Suite(.freshRegistry) struct DebounceCancellingPreviousPolicyTests {
  private static let quiet = Duration.milliseconds(300)

  /// A search whose request waits until `finish` opens or its task is cancelled; it notes when it starts and when it
  /// sees its cancellation.
  private final class Backend: Sendable {
    let started = Collector<String>()
    let cancelled = Collector<String>()
    private let finishes = Lock<[String: Gate]>([:])

    func gate(_ text: String) -> Gate {
      finishes.withLock { gates in
        if let gate = gates[text] { return gate }
        let gate = Gate()
        gates[text] = gate
        return gate
      }
    }

    func finish(_ text: String) { gate(text).open() }

    func search(_ text: String) async throws -> String {
      let gate = self.gate(text)
      await withTaskCancellationHandler {
        started.append(text)
        await gate.wait()
      } onCancel: {
        cancelled.append(text)
        gate.open()
      }
      try Task.checkCancellation()
      return "results for \(text)"
    }
  }

  private func type(
    _ text: String,
    into results: Shared<OperationState<String>>,
    clock: ManualClock,
    backend: Backend
  ) -> OperationTask<String> {
    results.run(.clock(clock), policy: .debounceCancellingPrevious(Self.quiet)) {
      try await backend.search(text)
    }
  }

  @Test func aBurstRunsOnlyItsLastTriggerAndSettlesTheOthersAtOnce() async throws {
    let clock = ManualClock()
    let results = Shared(value: OperationState<String>())
    let backend = Backend()
    let settled = Collector<String>()
    var tasks: [OperationTask<String>] = []
    for text in ["s", "sw", "swi"] {
      tasks.append(
        results.run(.clock(clock), policy: .debounceCancellingPrevious(Self.quiet)) {
          try await backend.search(text)
        } onSettled: { result in
          settled.append((try? result.get()) ?? "cancelled \(text)")
        })
    }
    // The two coalesced triggers stop waiting at once (their tasks are cancelled as the next trigger comes), and
    // settle without waiting out their quiet time: only the last one still sleeps.
    #expect(tasks.map { $0.isCancelled } == [true, true, false])
    guard tasks[0].isCancelled && tasks[1].isCancelled else { return }
    for task in tasks.prefix(2) {
      await #expect(throws: CancellationError.self) { try await task.value }
    }
    #expect(Set(settled.elements) == ["cancelled s", "cancelled sw"])
    await waitUntil { clock.sleeperCount == 1 }
    #expect(results.wrappedValue.status == .idle)  // Typing writes nothing.
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["swi"] }
    backend.finish("swi")
    #expect(try await tasks[2].value == "results for swi")
    #expect(backend.started.elements == ["swi"])
    #expect(results.wrappedValue.value == "results for swi")
    #expect(results.wrappedValue.status == .success)
  }

  @Test func theRunThatStartsCancelsTheRunInFlight() async throws {
    let clock = ManualClock()
    let results = Shared(value: OperationState<String>())
    let backend = Backend()
    let first = type("sw", into: results, clock: clock, backend: backend)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["sw"] }
    let second = type("swi", into: results, clock: clock, backend: backend)
    // The request in flight goes on while the next search waits for its quiet time.
    await clock.waitForSleepers(1)
    #expect(backend.cancelled.elements.isEmpty)
    clock.advance(by: Self.quiet)
    // The next search cancels the one in flight as it starts, before its own request: the backend sees it
    // cancelled.
    await waitUntil { backend.started.elements == ["sw", "swi"] }
    #expect(backend.cancelled.elements == ["sw"])
    backend.finish("sw")
    await #expect(throws: CancellationError.self) { try await first.value }
    backend.finish("swi")
    #expect(try await second.value == "results for swi")
    #expect(results.wrappedValue.value == "results for swi")
    #expect(results.wrappedValue.status == .success)
    #expect(!results.wrappedValue.isFetching)
  }

  @Test func aRunThatEndsWhileTheNextSearchWaitsShowsItsResults() async throws {
    let clock = ManualClock()
    let results = Shared(value: OperationState<String>())
    let backend = Backend()
    let first = type("sw", into: results, clock: clock, backend: backend)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["sw"] }
    let second = type("swi", into: results, clock: clock, backend: backend)
    backend.finish("sw")
    #expect(try await first.value == "results for sw")
    #expect(results.wrappedValue.value == "results for sw")  // The newest results there are, shown at once.
    #expect(results.wrappedValue.status == .success)
    #expect(!results.wrappedValue.isFetching)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["sw", "swi"] }
    backend.finish("swi")
    #expect(try await second.value == "results for swi")
    #expect(backend.cancelled.elements.isEmpty)
  }

  @Test func resultsStayShownWithoutFlickerWhileTheNextSearchesLoad() async throws {
    let clock = ManualClock()
    let results = Shared(value: OperationState<String>())
    let backend = Backend()
    let states = Collector<OperationState<String>>()
    let token = results.observe { states.append($0) }
    defer { token.cancel() }

    // The first search: nothing to show yet, so it shows a first load.
    let first = type("s", into: results, clock: clock, backend: backend)
    #expect(states.elements.isEmpty)  // A keystroke writes nothing.
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["s"] }
    #expect(results.wrappedValue.status == .pending)
    #expect(results.wrappedValue.isFetching)
    backend.finish("s")
    #expect(try await first.value == "results for s")
    let afterFirst = states.elements.count

    // The next searches keep the results on screen: success while fetching, and no change between one request
    // and the request that cancels it.
    let second = type("sw", into: results, clock: clock, backend: backend)
    #expect(states.elements.count == afterFirst)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["s", "sw"] }
    #expect(results.wrappedValue.status == .success)
    #expect(results.wrappedValue.value == "results for s")
    #expect(results.wrappedValue.isFetching)
    let third = type("swi", into: results, clock: clock, backend: backend)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["s", "sw", "swi"] }
    #expect(backend.cancelled.elements == ["sw"])
    backend.finish("sw")
    await #expect(throws: CancellationError.self) { try await second.value }
    backend.finish("swi")
    #expect(try await third.value == "results for swi")

    let later = states.elements.dropFirst(afterFirst)
    #expect(later.allSatisfy { $0.status == .success })
    // Fetching from the second search's start until the third one's results: no gap between them.
    #expect(later.dropLast().allSatisfy { $0.isFetching })
    #expect(later.last?.isFetching == false)
    #expect(later.last?.value == "results for swi")
    #expect(later.dropLast().allSatisfy { $0.value == "results for s" })
  }

  @Test func cancellingTheSearchInFlightPutsBackWhatTheStateShowed() async throws {
    let clock = ManualClock()
    let results = Shared(value: OperationState<String>())
    let backend = Backend()
    let first = type("s", into: results, clock: clock, backend: backend)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    backend.finish("s")
    #expect(try await first.value == "results for s")

    let second = type("sw", into: results, clock: clock, backend: backend)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["s", "sw"] }
    #expect(results.wrappedValue.isFetching)
    second.cancel()
    await #expect(throws: CancellationError.self) { try await second.value }
    #expect(results.wrappedValue.status == .success)
    #expect(results.wrappedValue.value == "results for s")
    #expect(!results.wrappedValue.isFetching)

    // A search cancelled while it waits for its quiet time never wrote anything.
    let third = type("swi", into: results, clock: clock, backend: backend)
    await clock.waitForSleepers(1)
    third.cancel()
    await #expect(throws: CancellationError.self) { try await third.value }
    #expect(backend.started.elements == ["s", "sw"])
    #expect(results.wrappedValue.status == .success)
    #expect(!results.wrappedValue.isFetching)
  }

  @Test func aFailedSearchKeepsItsErrorWhileTheNextOneLoads() async throws {
    let clock = ManualClock()
    let results = Shared(value: OperationState<String>())
    let failing = results.run(.clock(clock), policy: .debounceCancellingPrevious(Self.quiet)) {
      () async throws -> String in
      throw TestFailure()
    }
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await #expect(throws: TestFailure.self) { try await failing.value }
    #expect(results.wrappedValue.status == .error)

    let backend = Backend()
    let next = type("sw", into: results, clock: clock, backend: backend)
    await clock.waitForSleepers(1)
    clock.advance(by: Self.quiet)
    await waitUntil { backend.started.elements == ["sw"] }
    #expect(results.wrappedValue.status == .error)
    #expect(results.wrappedValue.error is TestFailure)
    #expect(results.wrappedValue.isFetching)
    backend.finish("sw")
    #expect(try await next.value == "results for sw")
    #expect(results.wrappedValue.status == .success)
    #expect(results.wrappedValue.error == nil)
  }
}
