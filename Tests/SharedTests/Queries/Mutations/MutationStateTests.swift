import TestSupport
import Testing

@testable import SharedState

/// A mutation's state: its bounded history of runs.
@Suite(.freshRegistry) struct MutationStateTests {
  @Test func aMutationHistoryReleasesTheRunsItDropsAfterTheLock() async throws {
    let target = ReadTarget<MutationState<ReadsOnRelease, Int>>()
    let mutation = Shared(value: MutationState<ReadsOnRelease, Int>(historyLimit: 1))
    target.set(mutation)
    for name in ["first", "second", "third"] {
      _ = try await mutation.mutate(target.value(name)) { _ in 1 }.value
    }
    await waitUntil { target.reads.count == 2 }
    #expect(mutation.wrappedValue.history.map(\.arguments.name) == ["third"])
  }
}
