import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@MainActor
extension RunCallbacksTests {
  @Test func callbacksOfAMainActorCallerRunOnTheMainActor() async throws {
    let post = Shared(value: OperationState<Int>())
    var calls: [String] = []  // Main-actor state: only reachable from main-actor callbacks.
    let task = post.run {
      1
    } onAttempt: {
      MainActor.assertIsolated()
      calls.append("attempt")
    } onSuccess: { _ in
      MainActor.assertIsolated()
      calls.append("success")
    } onSettled: { _ in
      MainActor.assertIsolated()
      calls.append("settled")
    }
    _ = try await task.value
    #expect(calls == ["attempt", "success", "settled"])
  }

  actor Screen {
    var calls: [String] = []
    let post = Shared(value: OperationState<Int>())

    func load() async throws {
      let task = post.run {
        2
      } onSuccess: { _ in
        self.assertIsolated()
        self.calls.append("success")
      } onSettled: { _ in
        self.assertIsolated()
        self.calls.append("settled")
      }
      _ = try await task.value
    }
  }

  @Test func callbacksOfAnActorCallerRunOnThatActor() async throws {
    let screen = Screen()
    try await screen.load()
    #expect(await screen.calls == ["success", "settled"])
  }
}
