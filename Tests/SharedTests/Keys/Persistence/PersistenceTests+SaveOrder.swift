import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A key that records every value it saves, in order.
private struct RecordingKey: SharedKey {
  typealias Value = Int
  let name: String
  let saves: Collector<Int>

  var id: String { name }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
    saves.append(value)
  }
}

// A writer blocked by a bug would never return: the time limit turns that deadlock into a failure.
extension PersistenceTests {
  /// Writer A's change waits in a slow observer until B's newer change is saved; A's save request comes last.
  @Test(.timeLimit(.minutes(20))) func anOlderChangeDelayedByASlowObserverIsNeverSavedAfterANewerOne() async throws {
    let saves = Collector<Int>()
    @Shared(RecordingKey(name: "ordered", saves: saves)) var value = 0
    try await delayFirstWriterBehindASecond($value)
    // Writer A's change may be saved before B's change exists (a busy machine runs its save early); it is never
    // saved after B's.
    #expect(saves.elements.last == 2)
    #expect(!saves.elements.drop { $0 != 2 }.contains(1))
    #expect(value == 2)
    #expect($value.saveError == nil)
  }

  @Test(.timeLimit(.minutes(20))) func aFileEndsWithTheNewestValueWhenAnOlderSaveRequestComesLast() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("number.json")
    @Shared(.fileStorage(url, saveDelay: .zero)) var value = 0
    try await delayFirstWriterBehindASecond($value)
    #expect(value == 2)
    #expect(try JSONDecoder().decode(Int.self, from: Data(contentsOf: url)) == 2)
    #expect($value.saveError == nil)
  }

  /// Writes 1 on a thread of its own, whose observer blocks until 2 was written and saved; then waits for both.
  private func delayFirstWriterBehindASecond(_ value: Shared<Int>) async throws {
    let entered = Counter()
    let release = DispatchSemaphore(value: 0)
    defer { release.signal() }  // A failed expectation never leaves the writer blocked.
    let token = value.observe { number in
      guard number == 1 else { return }
      entered.increment()
      release.wait()  // On the writer's thread of its own; a deadlock is left to the test's time limit.
    }
    defer { token.cancel() }
    let writerDone = Counter()
    Thread {
      value.withLock { $0 = 1 }
      writerDone.increment()
    }.start()
    await waitUntil { entered.count == 1 }
    value.withLock { $0 = 2 }
    try await value.save()
    release.signal()
    await waitUntil { writerDone.count == 1 }
    try await value.save()
  }
}
