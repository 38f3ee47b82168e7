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
}

/// A domain type that carries its own operations, as an app would write it: nothing but the embedded tracking.
private struct Session: OperationTrackable, Equatable {
  var user: String
  var operation = OperationTracking()

  mutating func applySuccess(_ user: String) { self.user = user }
}
