import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A value that cannot be compared.
struct Opaque: Sendable {
  var number: Int
}

/// A key whose store tells its watchers of every write, this program's own too, before the write call returns.
private struct EchoKey<Value: Sendable>: SharedKey {
  let name: String
  let number: @Sendable (Value) -> Int
  let saves: Collector<Int>
  /// Whether the store reports from a task of its own (a watcher) rather than from inside the save.
  let echoesFromAnotherTask: Bool
  /// Holds the first save's echo until opened.
  var holdFirstEcho: Gate?
  let contexts = Collector<SharedKeyContext<Value>>()

  var id: String { name }

  func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>) {
    contexts.append(context)
    continuation.resume(returning: nil)
  }

  func save(_ value: Value, context: SharedKeyContext<Value>) async throws {
    saves.append(number(value))
    // Bounded, so a store that re-saves forever is reported instead of spinning.
    guard saves.elements.count < 20 else { return }
    if saves.elements.count == 1, let holdFirstEcho { await holdFirstEcho.wait() }
    if echoesFromAnotherTask {
      await Task.detached { context.update(value) }.value
    } else {
      context.update(value)
    }
  }
}

extension PersistenceTests {
  /// The echo comes from another task while the save runs; it equals the value being saved.
  @Test func aStoreThatEchoesEachSaveFromAnotherTaskDuringItIsSavedOnce() async throws {
    let saves = Collector<Int>()
    let key = EchoKey<Int>(name: "echo", number: { $0 }, saves: saves, echoesFromAnotherTask: true)
    @Shared(key) var value = 0
    $value.withLock { $0 = 1 }
    try await $value.save()
    let context = try #require(key.contexts.elements.first)
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect(saves.elements == [1])
    #expect(value == 1)
    #expect($value.saveError == nil)
  }

  /// The program changes the value while a save runs; that save's echo comes later and must not undo the change.
  @Test(arguments: [false, true])
  func anEchoOfARunningSaveNeverReplacesANewerChange(fromAnotherTask: Bool) async throws {
    let saves = Collector<Int>()
    let hold = Gate()
    var key = EchoKey<Int>(name: "echo-late", number: { $0 }, saves: saves, echoesFromAnotherTask: fromAnotherTask)
    key.holdFirstEcho = hold
    try await changeDuringTheFirstSave(key: key, hold: hold)
    #expect(saves.elements == [1, 2])
  }

  private func changeDuringTheFirstSave(key: EchoKey<Int>, hold: Gate) async throws {
    @Shared(key) var value = 0
    $value.withLock { $0 = 1 }
    await waitUntil { key.saves.elements.count == 1 }
    $value.withLock { $0 = 2 }
    hold.open()
    try await $value.save()
    #expect(value == 2)
    let context = try #require(key.contexts.elements.first)
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect(value == 2)
  }

  /// The echo is reported from inside the save, of a value that cannot be compared.
  @Test func aStoreThatEchoesEachSaveFromInsideItIsSavedOnce() async throws {
    let saves = Collector<Int>()
    let key = EchoKey<Opaque>(name: "echo-opaque", number: \.number, saves: saves, echoesFromAnotherTask: false)
    @Shared(key) var value = Opaque(number: 0)
    $value.withLock { $0.number = 1 }
    try await $value.save()
    let context = try #require(key.contexts.elements.first)
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect(saves.elements == [1])
    #expect(value.number == 1)
  }
}
