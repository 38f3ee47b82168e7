import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A key whose first save waits at a gate and succeeds, and whose later saves fail at once.
private struct FirstSucceedsKey: SharedKey {
  typealias Value = Int
  let name: String
  let gate: Gate
  let saves: Collector<Int>
  let contexts = Collector<SharedKeyContext<Int>>()

  var id: String { name }

  func load(context: SharedKeyContext<Int>, continuation: SharedLoadContinuation<Int>) {
    contexts.append(context)
    continuation.resume(returning: nil)
  }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
    saves.append(value)
    if saves.elements.count == 1 {
      await gate.wait()
      return
    }
    throw TestFailure()
  }
}

extension PersistenceTests {
  /// `save()` for change 1 returns when change 1 is saved; change 2's save fails right after. The first `save()`
  /// reports its own result, not the later save's error.
  @Test func aSaveReportsItsOwnResultNotALaterSavesError() async throws {
    let key = FirstSucceedsKey(name: "own-result", gate: Gate(), saves: Collector())
    @Shared(key) var value = 0
    $value.withLock { $0 = 1 }
    await waitUntil { key.saves.elements.count == 1 }
    let context = try #require(key.contexts.elements.first)
    let shared = $value
    let first = Task { try await shared.save() }
    await waitUntil { context.persistence?.flushWaiterCount == 1 }
    $value.withLock { $0 = 2 }
    key.gate.open()
    let result = await first.result
    if case .failure(let error) = result { Issue.record("the save of change 1 threw \(error)") }
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect($value.saveError != nil)
  }

  /// A failed change that the store's own value then replaced keeps its error: the program's change never reached
  /// the store, and it learns so until it clears the error.
  @Test func aFailedChangeReplacedByTheStoresValueKeepsTheSaveErrorUntilCleared() async throws {
    let store = ContextKey.Store()
    store.saveErrors.withLock { $0 = [ReleasingError {}] }
    @Shared(ContextKey(name: "failed-then-replaced", store: store)) var value = Releasing(number: 0)
    $value.withLock { $0.number = 1 }
    await #expect(throws: ReleasingError.self) { try await $value.save() }
    let context = try #require(store.context.withLock { $0 })
    context.update(Releasing(number: 5))
    #expect(value.number == 5)
    #expect($value.saveError is ReleasingError)
    #expect($value.loadError == nil)
    $value.clearSaveError()
    #expect($value.saveError == nil)
  }

  /// The error of a replaced failure goes once a later change is saved.
  @Test func aSaveThatSucceedsAfterAReplacedFailureClearsTheSaveError() async throws {
    let store = ContextKey.Store()
    store.saveErrors.withLock { $0 = [ReleasingError {}] }
    @Shared(ContextKey(name: "failed-replaced-saved", store: store)) var value = Releasing(number: 0)
    $value.withLock { $0.number = 1 }
    await #expect(throws: ReleasingError.self) { try await $value.save() }
    let context = try #require(store.context.withLock { $0 })
    context.update(Releasing(number: 5))
    #expect($value.saveError != nil)
    $value.withLock { $0.number = 6 }
    try await $value.save()
    #expect($value.saveError == nil)
  }
}
