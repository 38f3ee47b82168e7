// A snippet of the documentation that states a result, run as a test.
import Foundation
import Observation
import SharedState
import Testing

/// TestingWithShared.md, "Time without waiting": run as a test, so the article's example is known to work. (The
/// article's trait is the one in Support/Support.swift, and its suite is `TodoTests`.)
@Suite(.freshRegistry) struct TimeWithoutWaitingSnippetTests {
  struct Settings: Codable, Sendable { var volume = 0 }

  let url = FileManager.default.temporaryDirectory.appending(path: "snippet-\(UUID().uuidString).json")

  @Test func savesAfterTheDelay() async throws {
    let clock = ManualClock()
    @Shared(.fileStorage(url, saveDelay: .seconds(1), clock: clock)) var settings = Settings()
    $settings.withLock { $0.volume = 3 }
    await clock.waitForSleepers(2)  // the file poll and the pending save
    clock.advance(by: .seconds(1))  // the save runs
    try await $settings.save()
  }

  // The examples of ``ClockWait`` and ``ManualClock/waitForSleepers(_:waitingFor:)``.
  func waitsForARetry(clock: ManualClock) async {
    await clock.waitForSleepers(waitingFor: .retryBackoff)  // the fetch failed and waits for its retry
    clock.advance(by: .seconds(1))
  }

  func waitsForARetryAlone(clock: ManualClock) async {
    await clock.waitForSleepers(waitingFor: .retryBackoff)  // not the garbage check that also sleeps
  }

  @Test func retriesAfterOneSecond() async {
    let clock = ManualClock()
    @Shared(.inMemory("post")) var post = OperationState<Int>()
    let task = $post.run(.retry(.constant(retries: 1, delay: .seconds(1))).clock(clock)) { throw URLError(.timedOut) }
    await clock.waitForSleepers(waitingFor: .retryBackoff)  // not the other waits on the clock
    #expect(clock.sleepers.map(\.wait) == [.retryBackoff])
    clock.advance(by: .seconds(1))  // the retry runs
    _ = try? await task.value
    #expect(post.operation.failureCount == 2)  // both attempts ran
  }

  @Test func theSavedFileHoldsTheChange() async throws {
    try await savesAfterTheDelay()
    let saved = try JSONDecoder().decode(Settings.self, from: Data(contentsOf: url))
    try? FileManager.default.removeItem(at: url)
    #expect(saved.volume == 3)
  }
}
