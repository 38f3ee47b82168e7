import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// The guarantees under load, reentrancy and faults (see the Guarantees article).
@Suite(.freshRegistry) struct AdversarialTests {
  @Test func eightTasksOfAHundredThousandIncrementsOverAHundredHoldersLoseNothing() async {
    let holders = (0..<100).map { _ in Shared(wrappedValue: 0, .inMemory("no-lost-updates")) }
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for index in 0..<100_000 {
            holders[(task * 13 + index) % 100].withLock { $0 += 1 }
            // Suspend now and then: a job that never does holds a thread of the cooperative pool for its whole
            // run, and the pool has as few threads as the machine has cores.
            if index % 1_000 == 999 { await Task.yield() }
          }
        }
      }
    }
    #expect(holders[0].wrappedValue == 800_000)
    #expect(holders.allSatisfy { $0.wrappedValue == 800_000 })
  }

  @Test func aThousandSubscribersOfTwoThousandChanges() async {
    let shared = Shared(value: 0)
    let changes = 2_000
    let complete = await withTaskGroup(of: Bool.self) { group in
      for index in 0..<1_000 {
        let policy: BufferingPolicy = index % 10 == 0 ? .latest : .all
        var iterator = shared.values(buffering: policy).makeAsyncIterator()
        group.addTask {
          var previous = -1
          var inOrder = true
          while let value = await iterator.next() {
            // `.all` sees every value, one by one; `.latest` may skip but never goes back.
            inOrder = inOrder && (policy == .all ? value == previous + 1 : value > previous)
            previous = value
            if value == changes { break }
          }
          return inOrder && previous == changes
        }
      }
      // Each change is handed to about a thousand subscribers: the writer suspends after every ten, so that it
      // never holds a thread of the cooperative pool for long (the subscribers and other tests need them).
      group.addTask {
        for change in 0..<changes {
          shared.withLock { $0 += 1 }
          if change % 10 == 9 { await Task.yield() }
        }
        return true
      }
      // Late subscribers join mid-stream and start from a current value.
      for _ in 0..<20 {
        group.addTask {
          await Task.yield()
          var iterator = shared.values(buffering: .all).makeAsyncIterator()
          guard let first = await iterator.next() else { return false }
          var previous = first
          while previous < changes, let value = await iterator.next() {
            guard value == previous + 1 else { return false }
            previous = value
          }
          return previous == changes
        }
      }
      var complete = true
      for await result in group { complete = complete && result }
      return complete
    }
    #expect(complete)
  }

  @Test func anObserverMayStartAnOperationOnItsOwnValue() async throws {
    let post = Shared(value: OperationState<Int>())
    let started = Collector<OperationTask<Int>>()
    let token = post.observe { state in
      if state.value == 1 && state.status.isSuccess && started.elements.isEmpty {
        started.append(post.run(isolation: nil) { 2 })
      }
    }
    _ = try await post.perform { 1 }
    await waitUntil { !started.elements.isEmpty }
    #expect(try await started.elements[0].value == 2)
    #expect(post.wrappedValue.value == 2)
    token.cancel()
  }

  @Test func cancellingDuringARetryWaitStopsTheRetries() async {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let events = Collector<String>()
    let task = post.run(.retry(.constant(retries: 5, delay: .seconds(1))).clock(clock)) {
      calls.increment()
      throw TestFailure()
    } onError: { _ in
      events.append("error")
    } onSettled: { result in
      if case .failure(let error) = result, error is CancellationError { events.append("settled cancelled") }
    }
    await clock.waitForSleepers()
    task.cancel()
    _ = await task.result
    clock.advance(by: .seconds(10))
    #expect(calls.count == 1)
    #expect(events.elements == ["settled cancelled"])
    #expect(post.wrappedValue.status == .idle)
  }

  @Test func cancellingAfterCompletionChangesNothing() async throws {
    let post = Shared(value: OperationState<Int>())
    let task = post.run { 5 }
    #expect(try await task.value == 5)
    task.cancel()
    #expect(try await task.value == 5)
    #expect(post.wrappedValue.status == .success)
  }

  @Test func boxesCreatedAndDroppedAreAllFreed() async {
    // Resident memory is shared with the tests running beside this one, so the proof here is object by object:
    // every sampled box, with its iteration and observer, is gone after its cycle. The benchmarks report the
    // resident growth over a million cycles, measured alone. The loop never suspends, so it runs on a thread of
    // its own rather than holding one of the cooperative pool's.
    let survivors = await onThreadOfItsOwn { Self.survivingSampledBoxes(cycles: 200_000) }
    #expect(survivors == 0)
  }

  /// Creates and drops `cycles` boxes, each with an iteration and an observer, and counts sampled boxes that
  /// outlived their cycle.
  private static func survivingSampledBoxes(cycles: Int) -> Int {
    weak var sampled: ReactiveBox<Int>?
    var survivors = 0
    for index in 0..<cycles {
      do {
        let box = ReactiveBox(index)
        let iterator = box.values.makeAsyncIterator()
        let token = box.observe { _ in }
        box.withLock { $0 += 1 }
        if index % 1_000 == 0 { sampled = box }
        withExtendedLifetime((iterator, token)) {}
      }
      if index % 1_000 == 0 && sampled != nil { survivors += 1 }
    }
    return survivors
  }

  @Test(arguments: [1, 2, 3, 42, 1_234, 99_999])
  func randomSequencesMatchASimpleModel(seed: UInt64) async {
    var random = SplitMix(seed: seed)
    let box = ReactiveBox(0)
    var model = 0
    // Each live iterator and the values the model says it has yet to receive.
    var iterators: [(iterator: ReactiveBox<Int>.Values.Iterator, expected: [Int], policy: BufferingPolicy)] = []
    var observed: [Int] = []
    let calls = Collector<Int>()
    var token: ObserverToken? = box.observe { calls.append($0) }
    for step in 0..<400 {
      switch random.next(below: 6) {
      case 0, 1:
        let amount = random.next(below: 5) + 1
        box.withLock { $0 += amount }
        model += amount
        if token != nil { observed.append(model) }
        for index in iterators.indices {
          if iterators[index].policy == .all {
            iterators[index].expected.append(model)
          } else {
            iterators[index].expected = [model]
          }
        }
      case 2:
        let policy: BufferingPolicy = random.next(below: 2) == 0 ? .all : .latest
        iterators.append((box.values(buffering: policy).makeAsyncIterator(), [model], policy))
      case 3 where !iterators.isEmpty:
        let index = random.next(below: iterators.count)
        for expected in iterators[index].expected {
          let value = await iterators[index].iterator.next()
          #expect(
            value == expected, "seed \(seed), step \(step): expected \(expected), got \(String(describing: value))")
        }
        iterators[index].expected = []
      case 4 where !iterators.isEmpty:
        iterators.remove(at: random.next(below: iterators.count))
      case 5:
        token = token == nil ? box.observe { calls.append($0) } : nil
      default:
        break
      }
      #expect(box.value == model, "seed \(seed), step \(step)")
      #expect(box.subscriberCount == iterators.count, "seed \(seed), step \(step)")
    }
    // Observers are called synchronously here (one task, no contention), so every change made while one was
    // registered reached it, and nothing else did.
    #expect(calls.elements == observed, "seed \(seed)")
    withExtendedLifetime(token) {}
  }
}
