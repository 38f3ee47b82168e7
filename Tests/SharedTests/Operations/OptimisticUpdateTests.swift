import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct OptimisticUpdateTests {
  static let addSeven = OptimisticUpdate<OperationState<[Int]>>(
    apply: { $0.value = ($0.value ?? []) + [7] },
    rollback: { $0.value?.removeAll { $0 == 7 } })

  @Test func appliedAtStartAndKeptOnSuccess() async throws {
    let list = Shared(value: OperationState<[Int]>(value: [1]))
    let gate = Gate()
    let task = list.run(optimistic: Self.addSeven) {
      await gate.wait()
      return [1, 7]
    }
    #expect(list.wrappedValue.value == [1, 7])
    gate.open()
    _ = try await task.value
    #expect(list.wrappedValue.value == [1, 7])
  }

  @Test func rolledBackOnFailure() async {
    let list = Shared(value: OperationState<[Int]>(value: [1]))
    let task = list.run(optimistic: Self.addSeven) { throw TestFailure() }
    _ = await task.result
    #expect(list.wrappedValue.value == [1])
    #expect(list.wrappedValue.status == .error)
  }

  @Test func rolledBackOnCancellation() async {
    let list = Shared(value: OperationState<[Int]>(value: [1]))
    let gate = Gate()
    let task = list.run(optimistic: Self.addSeven) {
      await gate.wait()
      try Task.checkCancellation()
      return [1, 7]
    }
    task.cancel()
    gate.open()
    _ = await task.result
    #expect(list.wrappedValue.value == [1])
    #expect(list.wrappedValue.status == .success)  // The status before the run: the list had a value.
  }
}
