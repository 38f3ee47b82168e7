import Foundation
import SharedState
import Testing

@testable import DemoKit

private struct SignInFailure: Error {}

/// The demo's domain types carry their operations in one embedded `OperationTracking`: no error storage, equality or
/// status helpers of their own.
@Suite struct DemoModelTests {
  @Test func aSessionComparesItsErrorByIdentity() {
    var failed = AuthSession()
    failed.operation.error = SignInFailure()
    failed.operation.status = .error
    let copy = failed
    var again = failed
    again.operation.error = SignInFailure()
    #expect(failed == copy)
    #expect(failed != again)
    #expect(failed.operation.status.isError)
    #expect(AuthSession().operation.status.isIdle)
  }

  @Test func aChannelComparesItsErrorByIdentity() {
    var channel = TopicChannel<String>()
    channel.operation.error = SignInFailure()
    let copy = channel
    var other = channel
    other.operation.error = SignInFailure()
    #expect(channel == copy)
    #expect(channel != other)
  }

  @MainActor @Test func aFailedSignInShowsAnErrorStatusToEveryHolder() async {
    let session = Shared(value: AuthSession())
    let task = session.run { throw SignInFailure() }
    _ = await task.result
    #expect(session.wrappedValue.operation.status == .error)
    #expect(session.wrappedValue.operation.error is SignInFailure)
    #expect(!session.wrappedValue.isSignedIn)
  }
}
