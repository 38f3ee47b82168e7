import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Runs on different elements of a collection are coordinated separately.
extension RunCoordinatorTableTests {
  @Test func cancelPreviousRunsOnTwoElementsOfAnArrayDoNotCancelEachOther() async throws {
    let list = Shared(value: [OperationState<Int>(), OperationState<Int>()])
    let first = list[dynamicMember: \.[0]]
    let second = list[dynamicMember: \.[1]]
    let gate = Gate()
    let started = Counter()
    let firstRun = first.run(policy: .cancelPrevious) {
      started.increment()
      await gate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    let secondRun = second.run(policy: .cancelPrevious) { 2 }
    #expect(try await secondRun.value == 2)
    gate.open()
    #expect((try? await firstRun.value) == 1)
    #expect(list.wrappedValue[0].status == .success)
    #expect(list.wrappedValue[0].value == 1)
    #expect(list.wrappedValue[1].value == 2)
  }

  @Test func dedupeRunsOnTwoElementsOfAnArrayDoNotJoinEachOther() async throws {
    let list = Shared(value: [OperationState<Int>(), OperationState<Int>()])
    let first = list[dynamicMember: \.[0]]
    let second = list[dynamicMember: \.[1]]
    let gate = Gate()
    let firstRun = first.run(policy: .dedupe) {
      await gate.wait()
      return 1
    }
    let secondRun = second.run(policy: .dedupe) { 2 }
    gate.open()
    #expect(try await firstRun.value == 1)
    #expect(try await secondRun.value == 2)
    #expect(list.wrappedValue.map(\.value) == [1, 2])
  }
}
