import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A value whose `applySuccess` accumulates: every applied success is kept, in order.
private struct Log: OperationTrackable {
  var items: [Int] = []
  var operation = OperationTracking()

  mutating func applySuccess(_ item: Int) { items.append(item) }
}

/// Successes held back while a newer run was pending are applied, in start order, before the newer run's result.
extension ParallelPolicyTests {
  @Test func anOlderSuccessHeldBackWhileANewerRunWasPendingIsAppliedBeforeIt() async throws {
    let log = Shared(value: Log())
    let olderGate = Gate()
    let newerGate = Gate()
    let started = Counter()
    let older = log.run {
      started.increment()
      await olderGate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    let newer = log.run {
      await newerGate.wait()
      return 2
    }
    olderGate.open()
    #expect(try await older.value == 1)
    #expect(log.wrappedValue.items == [])
    #expect(log.wrappedValue.operation.status == .pending)
    newerGate.open()
    #expect(try await newer.value == 2)
    #expect(log.wrappedValue.items == [1, 2])
    #expect(log.wrappedValue.operation.status == .success)
  }

  @Test func anOlderSuccessHeldBackIsAppliedBeforeItWhenTheNewerRunIsCancelled() async throws {
    let log = Shared(value: Log())
    let gate = Gate()
    let started = Counter()
    let oldest = log.run { 1 }
    #expect(try await oldest.value == 1)
    let olderGate = Gate()
    let older = log.run {
      started.increment()
      await olderGate.wait()
      return 2
    }
    await waitUntil { started.count == 1 }
    let middle = log.run { 3 }
    let newest = log.run {
      started.increment()
      await gate.wait()
      return 4
    }
    await waitUntil { started.count == 2 }
    #expect(try await middle.value == 3)
    olderGate.open()
    #expect(try await older.value == 2)
    #expect(log.wrappedValue.items == [1])
    newest.cancel()
    gate.open()
    _ = await newest.result
    #expect(log.wrappedValue.items == [1, 2, 3])
    #expect(log.wrappedValue.operation.status == .success)
  }

  @Test func anOlderSuccessEndingAfterANewerOneWasShownIsDropped() async throws {
    let log = Shared(value: Log())
    let gate = Gate()
    let started = Counter()
    let older = log.run {
      started.increment()
      await gate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    #expect(try await log.run { 2 }.value == 2)
    gate.open()
    #expect(try await older.value == 1)
    #expect(log.wrappedValue.items == [2])
  }
}
