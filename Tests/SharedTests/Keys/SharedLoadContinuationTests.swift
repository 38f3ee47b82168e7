import TestSupport
import Testing

@testable import SharedState

/// A key whose load returns without resuming, and keeps no copy of its continuation.
private struct ForgetfulKey: SharedKey {
  typealias Value = Int
  var id: String { "forgetful" }

  func load(context: SharedKeyContext<Int>, continuation: SharedLoadContinuation<Int>) {}

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {}
}

/// A key whose load resumes twice: first with `first`, then with an error.
private struct TwiceResumingKey: SharedKey {
  typealias Value = Int
  let first: Int
  var id: String { "twice" }

  func load(context: SharedKeyContext<Int>, continuation: SharedLoadContinuation<Int>) {
    continuation.resume(returning: first)
    continuation.resume(throwing: TestFailure())
  }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {}
}

/// A load continuation is resumed exactly once: one dropped ends the load with a named error, a second resume is
/// ignored.
@Suite(.freshRegistry) struct SharedLoadContinuationTests {
  @Test func aContinuationDroppedDuringTheCallEndsTheLoadWithANamedError() {
    @Shared(ForgetfulKey()) var value = 1
    #expect(!$value.isLoading)
    #expect(value == 1)
    #expect($value.loadError as? SharedLoadError == .notResumed(key: String(describing: ForgetfulKey())))
    #expect($value.loadError.map { "\($0)" }?.contains("exactly once") == true)
  }

  @Test func aContinuationDroppedLaterEndsTheLoadAndTheWaitingLoadCalls() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "dropped", store: store)) var value = 1
    await store.dropNextLoad()
    #expect(!$value.isLoading)
    #expect($value.loadError is SharedLoadError)
    let shared = $value
    let reload = Task { try await shared.load() }
    await store.dropNextLoad()
    await #expect(throws: SharedLoadError.self) { try await reload.value }  // Returns; never waits forever.
    #expect(value == 1)
  }

  @Test func aSecondResumeIsIgnored() {
    @Shared(TwiceResumingKey(first: 6)) var value = 0
    #expect(value == 6)
    #expect($value.loadError == nil)
    #expect(!$value.isLoading)
  }
}
