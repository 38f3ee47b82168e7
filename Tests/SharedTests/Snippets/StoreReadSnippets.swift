// The snippets of SharedStoreRead, SharedKeyContext's checked reads and the storing-values article, as written.
import SharedState

enum StoreReadSnippets {
  struct Counter: Sendable {
    var count = 0
    func merging(_ other: Counter) -> Counter { Counter(count: max(count, other.count)) }
  }

  struct RemoteStore {
    func write(_ counter: Counter) async {}
    func write(_ counter: Counter, named name: String) async throws -> Counter { counter }
    func fetch(_ name: String) async throws -> Counter { Counter() }
  }

  struct OptionalRemoteStore {
    func fetch(_ name: String) async throws -> Counter? { nil }
  }

  static func scheduleAnotherRead() {}

  struct Merging {
    let remoteStore = RemoteStore()

    func apply(_ remote: Counter, context: SharedKeyContext<Counter>) async {
      while let read = context.storeReadStarted(), let local = context.currentValue {
        let merged = Counter(count: max(local.count, remote.count))
        await remoteStore.write(merged)
        if context.update(merged, readAt: read) { return }
      }
    }
  }

  struct MergingInMemory {
    func apply(_ remote: Counter, context: SharedKeyContext<Counter>) {
      while let read = context.storeReadStarted(), let local = context.currentValue {
        if context.update(Counter(count: max(local.count, remote.count)), readAt: read) { return }
      }
    }
  }

  static func poll(context: SharedKeyContext<Counter>, remote: RemoteStore, name: String) async throws {
    guard let read = context.storeReadStarted() else { return }  // Every holder is gone.
    let stored = try await remote.fetch(name)
    if !context.update(stored, readAt: read) { scheduleAnotherRead() }
  }

  static func merge(context: SharedKeyContext<Counter>, remote: RemoteStore, name: String) async throws {
    while let read = context.storeReadStarted(), let local = context.currentValue {
      let merged = local.merging(try await remote.fetch(name))
      if context.update(merged, readAt: read) { break }
    }
  }

  static func reset(context: SharedKeyContext<Counter>, remote: OptionalRemoteStore, name: String) async throws {
    guard let read = context.storeReadStarted() else { return }
    if try await remote.fetch(name) == nil, !context.resetToDefault(readAt: read) { scheduleAnotherRead() }
  }

  // SharedKeyContext.updateAfterSaving(_:readAt:)
  static func saveAgain(context: SharedKeyContext<Counter>, remote: RemoteStore, name: String) async throws {
    guard let read = context.storeReadStarted(), let local = context.currentValue else { return }
    let stored = try await remote.write(local, named: name)
    _ = context.updateAfterSaving(stored, readAt: read)
  }
}
