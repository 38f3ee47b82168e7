import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

private struct StoreUnavailable: Error {}

/// A key whose store answers when the test says so: its loads wait until resumed.
private struct PendingKey: SharedKey {
  typealias Value = String
  let name: String
  let loads: Loads

  final class Loads: Sendable {
    let waiting = Lock<[SharedLoadContinuation<String>]>([])

    func resume(_ result: Result<String?, StoreUnavailable>) {
      let continuations = waiting.withLock { waiting in
        defer { waiting = [] }
        return waiting
      }
      for continuation in continuations { continuation.resume(with: result) }
    }
  }

  var id: String { name }
  var lifetime: SharedKeyLifetime { .whileHeld }

  func load(context: SharedKeyContext<String>, continuation: SharedLoadContinuation<String>) {
    loads.waiting.withLock { $0.append(continuation) }
  }

  func save(_ value: String, context: SharedKeyContext<String>) async throws {}
}

/// A holder that moves between keys of any kind, keeping the previous value shown while the new key loads.
@Suite(.freshRegistry) struct SharedKeyHolderTests {
  @Test func movingToAValueThatIsThereShowsItAtOnce() {
    let holder = SharedKeyHolder(Shared(wrappedValue: "first", .inMemory("a")))
    #expect(holder.shown.wrappedValue.value == "first")
    holder.load(Shared(wrappedValue: "second", .inMemory("b")))
    #expect(holder.shown.wrappedValue.value == "second")
    #expect(!holder.shown.wrappedValue.isPlaceholder)
    holder.writable?.withLock { $0 = "second, edited" }
    #expect(holder.shown.wrappedValue.value == "second, edited")
    #expect(Shared(wrappedValue: "", .inMemory("a")).wrappedValue == "first")
  }

  @Test func aQueryShowsThePreviousQuerysValueWhileItsFirstFetchRuns() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let options = queryStoreOptions(clock)
    let first: Query<OperationState<String>> = .query(["posts", 1], options: options) { await fetcher.fetch() }
    let second: Query<OperationState<String>> = .query(["posts", 2], options: options) { await fetcher.fetch() }
    let holder = SharedKeyHolder(Shared(wrappedValue: OperationState<String>(), first))
    #expect(holder.shown.wrappedValue.isLoading)  // Its first fetch runs; nothing was shown before.
    #expect(!holder.shown.wrappedValue.isPlaceholder)
    await waitUntil { holder.shown.wrappedValue.value.value == "fetch 1" }
    let gate = fetcher.hold()
    holder.load(Shared(wrappedValue: OperationState<String>(), second))
    #expect(holder.shown.wrappedValue.value.value == "fetch 1")
    #expect(holder.shown.wrappedValue.isPlaceholder)
    #expect(holder.shown.wrappedValue.isLoading)
    gate.open()
    await waitUntil { !holder.shown.wrappedValue.isLoading }
    #expect(holder.shown.wrappedValue.value.value == "fetch 2")
    #expect(!holder.shown.wrappedValue.isPlaceholder)
  }

  @Test func thePreviousValueShowsWhileTheNewKeyLoadsAndTheLoadedValueReplacesIt() async {
    let loads = PendingKey.Loads()
    let holder = SharedKeyHolder(Shared(wrappedValue: "user A's", .inMemory("a")))
    holder.load(Shared(wrappedValue: "default", PendingKey(name: "b", loads: loads)))
    #expect(holder.shown.wrappedValue.value == "user A's")
    #expect(holder.shown.wrappedValue.isPlaceholder)
    #expect(holder.shown.wrappedValue.isLoading)
    #expect(holder.current.wrappedValue == "default")  // The previous value is not written into the new key.
    loads.resume(.success("user B's"))
    await waitUntil { !holder.shown.wrappedValue.isLoading }
    #expect(holder.shown.wrappedValue.value == "user B's")
    #expect(!holder.shown.wrappedValue.isPlaceholder)
  }

  @Test func aFailedLoadShowsTheNewKeysValueWithItsError() async {
    let loads = PendingKey.Loads()
    let holder = SharedKeyHolder(Shared(wrappedValue: "user A's", .inMemory("a")))
    holder.load(Shared(wrappedValue: "default", PendingKey(name: "b", loads: loads)))
    loads.resume(.failure(StoreUnavailable()))
    await waitUntil { !holder.shown.wrappedValue.isLoading }
    #expect(holder.shown.wrappedValue.value == "default")
    #expect(holder.shown.wrappedValue.loadError is StoreUnavailable)
    #expect(!holder.shown.wrappedValue.isPlaceholder)
  }

  @Test func aValueLeftBehindChangesNothingShown() {
    let first = Shared(wrappedValue: "first", .inMemory("a"))
    let holder = SharedKeyHolder(first)
    holder.load(Shared(wrappedValue: "second", .inMemory("b")))
    first.withLock { $0 = "first, changed after the move" }
    #expect(holder.shown.wrappedValue.value == "second")
  }

  @Test func aFirstValueThatLoadsShowsItsDefaultUntilItHasLoaded() async {
    let loads = PendingKey.Loads()
    let holder = SharedKeyHolder(Shared(wrappedValue: "default", PendingKey(name: "a", loads: loads)))
    #expect(holder.shown.wrappedValue.isLoading)
    #expect(!holder.shown.wrappedValue.isPlaceholder)  // Nothing came before it.
    loads.resume(.success("stored"))
    await waitUntil { holder.shown.wrappedValue.value == "stored" }
  }
}
