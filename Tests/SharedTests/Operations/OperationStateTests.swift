import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct OperationStateTests {
  @Test func hashableErrorIsEqualOnlyToItself() {
    let first = HashableError(TestFailure())
    let copy = first
    #expect(first == copy)
    #expect(first != HashableError(TestFailure()))
    #expect(HashableError(first) == first)
    #expect(Set([first, copy]).count == 1)
    #expect((first.error as? TestFailure) == TestFailure())
  }

  @Test func operationStatesCompareErrorsByIdentity() {
    var first = OperationState<Int>()
    first.error = TestFailure()
    let copy = first
    var other = first
    other.error = TestFailure()
    #expect(first == copy)
    #expect(first != other)
  }

  @Test func theStateReadsAndWritesItsTrackingThroughItsOwnMembers() {
    var state = OperationState<Int>()
    state.status = .pending
    state.attempt = 2
    state.error = TestFailure(code: 4)
    #expect(state.operation.status == .pending)
    #expect(state.operation.attempt == 2)
    #expect((state.operation.error as? TestFailure)?.code == 4)
    state.operation.status = .error
    #expect(state.status == .error)
    #expect(OperationState(value: 1).status == .success)
    #expect(OperationState<Int>().status == .idle)
  }
}
