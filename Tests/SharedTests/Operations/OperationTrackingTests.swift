import Foundation
import Testing

@testable import SharedState

/// The small value every operation state embeds: equal by status, error identity, attempt and time.
@Suite struct OperationTrackingTests {
  @Test func aNewTrackingIsIdleWithNothingElse() {
    let tracking = OperationTracking()
    #expect(tracking.status == .idle)
    #expect(tracking.error == nil)
    #expect(tracking.attempt == 0)
    #expect(tracking.updatedAt == nil)
    #expect(tracking == OperationTracking())
  }

  @Test func theSameErrorAndItsCopiesAreEqualAnotherEqualErrorIsNot() {
    var first = OperationTracking()
    first.error = TestFailure(code: 1)
    let copy = first
    var other = first
    other.error = TestFailure(code: 1)
    #expect(first == copy)
    #expect(first != other)
    #expect(first.hashValue == copy.hashValue)
  }

  @Test func everyStoredMemberTakesPartInEquality() {
    let base = OperationTracking()
    var status = base
    status.status = .pending
    var attempt = base
    attempt.attempt = 2
    var time = base
    time.updatedAt = Date(timeIntervalSince1970: 1)
    for changed in [status, attempt, time] { #expect(changed != base) }
    #expect(Set([base, status, attempt, time]).count == 4)
  }

  @Test func aDomainTypeEmbeddingItIsEquatableByIdentityOfItsError() {
    var first = Session(user: "ada")
    first.operation.error = TestFailure()
    let copy = first
    var other = first
    other.operation.error = TestFailure()
    #expect(first == copy)
    #expect(first != other)
  }

  @Test func theTransitionsTheLibraryWrites() {
    var tracking = OperationTracking()
    tracking.begin()
    #expect(tracking.status == .pending && tracking.attempt == 1 && tracking.updatedAt != nil)
    tracking.retry(2)
    #expect(tracking.attempt == 2)
    tracking.fail(TestFailure())
    #expect(tracking.status == .error && tracking.error is TestFailure)
    tracking.begin()
    #expect(tracking.error is TestFailure)  // The error stays while the next run is pending.
    tracking.succeed()
    #expect(tracking.status == .success && tracking.error == nil)
    tracking.fail(TestFailure())
    tracking.reset()
    #expect(tracking.status == .idle && tracking.error == nil && tracking.attempt == 0)
    tracking.restore(.success)
    #expect(tracking.status == .success)
  }

  @Test func theDataAndErrorDatesMoveOnlyWithTheDataAndTheFailures() throws {
    var tracking = OperationTracking()
    #expect(tracking.dataUpdatedAt == nil && tracking.errorUpdatedAt == nil)
    tracking.beginFetch()
    #expect(tracking.updatedAt != nil && tracking.dataUpdatedAt == nil)
    tracking.succeed()
    let obtainedAt = try #require(tracking.dataUpdatedAt)
    #expect(tracking.updatedAt == obtainedAt)
    // A refetch starts, retries and fails: the state moves, the value's date stays.
    tracking.beginFetch()
    tracking.noteFailure(TestFailure(), failureCount: 1)
    tracking.retry(2)
    tracking.fail(TestFailure())
    let failedAt = try #require(tracking.errorUpdatedAt)
    #expect(tracking.dataUpdatedAt == obtainedAt)
    #expect(tracking.updatedAt == failedAt)
    // A value set as obtained at a time takes that time; the failure's date stays, its error goes.
    let setAt = Date(timeIntervalSinceReferenceDate: 1_000.123_456_7)
    tracking.markSet(at: setAt)
    #expect(tracking.dataUpdatedAt == setAt && tracking.errorUpdatedAt == failedAt && tracking.error == nil)
    tracking.reset()
    #expect(tracking.dataUpdatedAt == nil && tracking.errorUpdatedAt == nil && tracking.updatedAt != nil)
    var dates = OperationTracking()
    dates.dataUpdatedAt = setAt
    #expect(dates != OperationTracking())
  }

  @Test func theThreeDatesTakeNoMoreRoomThanOneDid() {
    // 4 one-byte flags, two 32-bit counts, three 8-byte dates, two optional error references.
    #expect(MemoryLayout<OperationTracking>.size == 56)
    #expect(MemoryLayout<CompactDate>.size == 8)
  }

  @Test func aRunIsFetchingExactlyWhilePendingAndCountsItsFailures() {
    var tracking = OperationTracking()
    #expect(!tracking.isFetching && tracking.failureCount == 0 && tracking.failureReason == nil)
    tracking.begin()
    #expect(tracking.isFetching)
    let first = TestFailure()
    tracking.noteFailure(first, failureCount: 1)
    #expect(tracking.failureCount == 1 && tracking.failureReason is TestFailure && tracking.error == nil)
    #expect(tracking.status == .pending && tracking.isFetching)  // Retrying: still running.
    tracking.retry(2)
    tracking.fail(TestFailure())
    // The final failure counts too, and is both the error and the last failure.
    #expect(tracking.status == .error && !tracking.isFetching && tracking.failureCount == 2)
    #expect(tracking.storedError == tracking.storedFailureReason)
    tracking.begin()  // A new run starts with no failures.
    #expect(tracking.failureCount == 0 && tracking.failureReason == nil && tracking.error is TestFailure)
    tracking.noteFailure(first, failureCount: 1)
    tracking.succeed()  // A success clears them.
    #expect(tracking.failureCount == 0 && tracking.failureReason == nil && !tracking.isFetching)
    tracking.begin()
    tracking.restore(.success)  // Every run cancelled.
    #expect(!tracking.isFetching)
    tracking.begin()
    tracking.noteFailure(first, failureCount: 1)
    tracking.reset()
    #expect(!tracking.isFetching && tracking.failureCount == 0 && tracking.failureReason == nil)
  }

  @Test func aQueryFetchKeepsTheStatusExceptForAFirstLoad() {
    var tracking = OperationTracking()
    tracking.beginFetch()  // A first load.
    #expect(tracking.status == .pending && tracking.isFetching && tracking.attempt == 1)
    tracking.succeed()
    tracking.beginFetch()  // A refetch is not a load.
    #expect(tracking.status == .success && tracking.isFetching)
    tracking.fail(TestFailure())
    tracking.beginFetch()
    #expect(tracking.status == .error && tracking.isFetching && tracking.error is TestFailure)
    #expect(tracking.failureCount == 0)  // A fetch starts with no failures; the error stays.
    tracking.endFetch()
    #expect(tracking.status == .error && !tracking.isFetching)
  }
}

/// A domain type that carries its own operations, as an app would write it: nothing but the embedded tracking.
private struct Session: OperationTrackable, Equatable {
  var user: String
  var operation = OperationTracking()

  mutating func applySuccess(_ user: String) { self.user = user }
}
